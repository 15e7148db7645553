import * as v from 'valibot';
import { ArtifactItemSchema } from '../artifacts/model.js';
import { RUN_ERROR_CODES } from '../run/error-codes.js';
import { AmbientAgentConfigSchema } from './config.js';
import { RequestUsageSchema } from './request-usage.js';
import { RUN_SOURCES, RUN_STATES } from './run-state.js';

/**
 * Wire models of a run (docs/run-api.md, "The run: `RunItem`"). These schemas describe what the API
 * returns; they are used to check responses in tests and give the TypeScript types of the public
 * surface.
 */

export const RunStateSchema = v.picklist(RUN_STATES, 'must be one of ' + RUN_STATES.join(', '));
export const RunSourceTypeSchema = v.picklist(RUN_SOURCES, 'must be one of ' + RUN_SOURCES.join(', '));

export const RunStatusMessageSchema = v.object({
  message: v.string(),
  error_code: v.optional(
    v.pipe(
      v.string(),
      v.description(
        `Why the run failed, when it did. agentrun's own: ${RUN_ERROR_CODES.map((c) => `\`${c}\``).join(', ')}; an executor or agent may give others.`,
      ),
    ),
  ),
  retryable: v.optional(v.boolean()),
});
export type RunStatusMessage = v.InferOutput<typeof RunStatusMessageSchema>;

export const RunCreatorInfoSchema = v.object({
  type: v.picklist(['user', 'service_account']),
  uid: v.string(),
  display_name: v.optional(v.string()),
  email: v.optional(v.string()),
  photo_url: v.optional(v.string()),
});
export type RunCreatorInfo = v.InferOutput<typeof RunCreatorInfoSchema>;

export const RunTriggerSchema = v.object({
  factory_uid: v.string(),
  automation_id: v.string(),
  webhook_uid: v.string(),
  delivery_id: v.string(),
});
export type RunTrigger = v.InferOutput<typeof RunTriggerSchema>;

/**
 * The schedule that started a run (docs/schedules.md): the clients' `RunItem.schedule`, as the
 * schedule was at that due time, and the due time itself (`due_at`, agentrun's).
 */
export const RunScheduleInfoSchema = v.object({
  schedule_id: v.string(),
  schedule_name: v.string(),
  cron_schedule: v.string(),
  due_at: v.string(),
});
export type RunScheduleInfo = v.InferOutput<typeof RunScheduleInfoSchema>;

/**
 * A run's skill (docs/run-api.md, `agent_skill`): `name`, `description` and `full_path` as the
 * published clients type it, the `spec` asked for, and where it was pinned (`repository`, `commit`).
 */
export const AgentSkillSchema = v.object({
  name: v.string(),
  description: v.optional(v.string()),
  full_path: v.optional(v.string()),
  spec: v.string(),
  repository: v.optional(v.string()),
  commit: v.optional(v.string()),
});
export type AgentSkill = v.InferOutput<typeof AgentSkillSchema>;

export const AttachmentInfoSchema = v.object({
  file_name: v.string(),
  mime_type: v.string(),
  size: v.number(),
});
export type AttachmentInfo = v.InferOutput<typeof AttachmentInfoSchema>;

export const RunItemSchema = v.object({
  run_id: v.string(),
  task_id: v.string(),
  title: v.string(),
  state: RunStateSchema,
  prompt: v.string(),
  created_at: v.string(),
  updated_at: v.string(),
  started_at: v.optional(v.nullable(v.string())),
  status_message: v.optional(RunStatusMessageSchema),
  source: v.optional(RunSourceTypeSchema),
  creator: v.optional(RunCreatorInfoSchema),
  scope: v.optional(v.object({ type: v.picklist(['User', 'Team']), uid: v.optional(v.string()) })),
  session_id: v.optional(v.string()),
  session_link: v.optional(v.string()),
  agent_config: v.optional(AmbientAgentConfigSchema),
  conversation_id: v.optional(v.string()),
  parent_run_id: v.optional(v.string()),
  agent_identity_uid: v.optional(v.string()),
  agent_skill: v.optional(AgentSkillSchema),
  trigger: v.optional(RunTriggerSchema),
  schedule: v.optional(RunScheduleInfoSchema),
  attachments: v.optional(v.array(AttachmentInfoSchema)),
  request_usage: v.optional(RequestUsageSchema),
  /** What the run's agent reported (docs/artifacts.md); absent until it reports one. */
  artifacts: v.optional(v.array(ArtifactItemSchema)),
  /** Always `REMOTE`: a run executes on the host's executor, never on the caller's machine. */
  execution_location: v.optional(v.picklist(['LOCAL', 'REMOTE'])),
});
export type RunItem = v.InferOutput<typeof RunItemSchema>;

export const PageInfoSchema = v.object({
  has_next_page: v.boolean(),
  next_cursor: v.optional(v.string()),
});
export type PageInfo = v.InferOutput<typeof PageInfoSchema>;

export const ListRunsResponseSchema = v.object({
  runs: v.array(RunItemSchema),
  page_info: PageInfoSchema,
});
export type ListRunsResponse = v.InferOutput<typeof ListRunsResponseSchema>;

export const RunAgentResponseSchema = v.object({
  run_id: v.string(),
  task_id: v.string(),
  state: RunStateSchema,
});
export type RunAgentResponse = v.InferOutput<typeof RunAgentResponseSchema>;

export const RunFollowupResponseSchema = v.object({
  run_id: v.string(),
  state: RunStateSchema,
});
export type RunFollowupResponse = v.InferOutput<typeof RunFollowupResponseSchema>;

/**
 * Answer of `GET /agent/sessions/{sessionUuid}/redirect` (docs/run-api.md, "Session redirect"): the
 * conversation to show instead of the live session once its run has ended; empty while it runs.
 */
export const SessionRedirectResponseSchema = v.object({
  conversation_id: v.optional(v.string()),
});
export type SessionRedirectResponse = v.InferOutput<typeof SessionRedirectResponseSchema>;

/** `GET /agent/conversations/{conversationId}/redirect`: the live session to show, or nothing. */
export const ConversationRedirectResponseSchema = v.object({
  session_id: v.optional(v.string()),
});
export type ConversationRedirectResponse = v.InferOutput<typeof ConversationRedirectResponseSchema>;
