import * as v from 'valibot';
import { AmbientAgentConfigSchema } from '../models/config.js';
import type { ScheduleRecord } from './records.js';

const UserProfileSchema = v.object({
  type: v.optional(v.picklist(['user', 'service_account'])),
  uid: v.optional(v.string()),
  display_name: v.optional(v.string()),
  photo_url: v.optional(v.string()),
});

/** A schedule as the API shows it: the published clients' `ScheduledAgentItem` (docs/schedules.md). */
export const ScheduledAgentItemSchema = v.object({
  id: v.string(),
  name: v.string(),
  cron_schedule: v.string(),
  /** agentrun's: the IANA time zone the expression is read in. */
  time_zone: v.string(),
  enabled: v.boolean(),
  prompt: v.string(),
  agent_config: v.optional(AmbientAgentConfigSchema),
  created_at: v.string(),
  updated_at: v.string(),
  created_by: v.optional(UserProfileSchema),
  updated_by: v.optional(UserProfileSchema),
  history: v.object({ last_ran: v.nullable(v.string()), next_run: v.nullable(v.string()) }),
  last_spawn_error: v.nullable(v.string()),
  scope: v.object({ type: v.picklist(['User', 'Team']), uid: v.optional(v.string()) }),
  /** agentrun's: the factory whose definition files define it, and the file (docs/definitions.md). */
  factory_uid: v.nullable(v.string()),
  definition_file: v.optional(v.string()),
});
export type ScheduledAgentItem = v.InferOutput<typeof ScheduledAgentItemSchema>;

export const ScheduleListSchema = v.object({ schedules: v.array(ScheduledAgentItemSchema) });
export const ScheduleDeleteSchema = v.object({ success: v.boolean() });

const profile = (o: ScheduleRecord['owner']) => ({
  type: o.type,
  uid: o.uid,
  ...(o.display_name !== undefined ? { display_name: o.display_name } : {}),
  ...(o.photo_url !== undefined ? { photo_url: o.photo_url } : {}),
});

export const scheduleView = (s: ScheduleRecord): ScheduledAgentItem => ({
  id: s.id,
  name: s.name,
  cron_schedule: s.cronSchedule,
  time_zone: s.timeZone,
  enabled: s.enabled,
  prompt: s.prompt,
  ...(s.agentConfig !== null ? { agent_config: s.agentConfig } : {}),
  created_at: s.createdAt,
  updated_at: s.updatedAt,
  created_by: profile(s.createdBy),
  updated_by: profile(s.owner),
  history: { last_ran: s.lastRanAt, next_run: s.enabled ? s.nextDueAt : null },
  last_spawn_error: s.lastSpawnError,
  scope: { type: 'Team', uid: s.teamUid },
  factory_uid: s.factoryUid,
  ...(s.factoryUid !== null ? { definition_file: `schedules/${s.name}.yaml` } : {}),
});
