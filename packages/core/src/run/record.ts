import type { ArtifactItem } from '../artifacts/model.js';
import type { AmbientAgentConfig } from '../models/config.js';
import type { RequestUsage } from '../models/request-usage.js';
import type { AgentSkill, AttachmentInfo, RunCreatorInfo, RunItem, RunScheduleInfo, RunStatusMessage, RunTrigger } from '../models/run.js';
import type { RunSourceType, RunState } from '../models/run-state.js';

/**
 * A run as stores keep it. Timestamps are RFC 3339 UTC strings with milliseconds (fixed width,
 * so string order is time order). `null` means "not set"; stores return every field.
 */
export interface RunRecord {
  id: string;
  teamUid: string;
  title: string;
  prompt: string;
  state: RunState;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  statusMessage: RunStatusMessage | null;
  source: RunSourceType;
  creator: RunCreatorInfo;
  /** The resolved configuration (skill and name applied). */
  config: AmbientAgentConfig;
  sessionId: string | null;
  sessionLink: string | null;
  conversationId: string;
  parentRunId: string | null;
  /**
   * The parent, its parent, and so on (nearest first, at most `MAX_ANCESTORS`): what the list's
   * `ancestor_run_id` filter matches. Empty for a run without a parent.
   */
  ancestorRunIds: string[];
  /** A factory foreman's identity this run was dispatched to. */
  agentIdentityUid: string | null;
  /** The factory this run belongs to, when it is a factory run. */
  factoryUid: string | null;
  skill: AgentSkill | null;
  trigger: RunTrigger | null;
  /** The schedule that started it, at which due time (docs/schedules.md). */
  schedule: RunScheduleInfo | null;
  attachments: AttachmentInfo[];
  /** What its agent reported (docs/artifacts.md), in the order added; the store appends (`store.artifacts.add`). */
  artifacts: ArtifactItem[];
  /** What the agent reported the run cost (models/request-usage.ts); `null` until it reports. */
  requestUsage: RequestUsage | null;
  /** How many times a worker has claimed this run. */
  attempts: number;
  /** The worker holding the run and until when; `null` unless the run is in a leased state. */
  lease: RunLease | null;
}

/** The most ancestors a run keeps: a run whose parent already has this many cannot be started (400). */
export const MAX_ANCESTORS = 32;

export interface RunLease {
  workerId: string;
  expiresAt: string;
}

export interface FollowupRecord {
  id: string;
  runId: string;
  message: string;
  createdAt: string;
  creatorUid: string;
}

export interface AttachmentRecord {
  runId: string;
  fileName: string;
  mimeType: string;
  data: Uint8Array;
}

/** The public view of a run: what the API returns and events carry. */
export function toRunItem(run: RunRecord): RunItem {
  const item: RunItem = {
    run_id: run.id,
    task_id: run.id,
    title: run.title,
    state: run.state,
    prompt: run.prompt,
    created_at: run.createdAt,
    updated_at: run.updatedAt,
    started_at: run.startedAt,
    source: run.source,
    creator: run.creator,
    scope: { type: 'Team', uid: run.teamUid },
    agent_config: run.config,
    conversation_id: run.conversationId,
    attachments: run.attachments,
    execution_location: 'REMOTE',
  };
  if (run.statusMessage) item.status_message = run.statusMessage;
  if (run.sessionId !== null) item.session_id = run.sessionId;
  if (run.sessionLink !== null) item.session_link = run.sessionLink;
  if (run.parentRunId !== null) item.parent_run_id = run.parentRunId;
  if (run.agentIdentityUid !== null) item.agent_identity_uid = run.agentIdentityUid;
  if (run.skill) item.agent_skill = run.skill;
  if (run.trigger) item.trigger = run.trigger;
  if (run.requestUsage) item.request_usage = run.requestUsage;
  if (run.schedule) item.schedule = run.schedule;
  if (run.artifacts.length > 0) item.artifacts = run.artifacts;
  return item;
}

/**
 * {@link toRunItem} sharing no object with the record: its nested parts copied one level. For an
 * event about a record someone else keeps (a store may keep an evaluated delivery's runs as given,
 * and a webhook run shares its creator and configuration, frozen, with its automation's other
 * runs: ingress/webhook-run.ts), since a listener may change what it is given.
 */
export function detachedRunItem(run: RunRecord): RunItem {
  return toRunItem({
    ...run,
    creator: { ...run.creator },
    config: { ...run.config },
    trigger: run.trigger && { ...run.trigger },
    skill: run.skill && { ...run.skill },
    attachments: run.attachments.map((a) => ({ ...a })),
  });
}
