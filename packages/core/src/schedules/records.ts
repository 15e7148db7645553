import type { AmbientAgentConfig } from '../models/config.js';
import type { RunCreatorInfo } from '../models/run.js';

/**
 * A schedule (docs/schedules.md): a prompt (or a skill) and an `agent_config` that a cron
 * expression starts as a run at each due time, in an explicit IANA time zone. Team-wide; the runs
 * it starts are created in the name of whoever last saved it (`owner`).
 */
export interface ScheduleRecord {
  id: string;
  teamUid: string;
  /** The factory whose definition files define it (`schedules/<name>.yaml`); `null`: made through the API. */
  factoryUid: string | null;
  /** Unique among a factory's file-defined schedules (the file name); any text otherwise. */
  name: string;
  /** Five fields: minute hour day-of-month month day-of-week (schedules/cron.ts). */
  cronSchedule: string;
  /** IANA name the expression is read in; `UTC` unless given. */
  timeZone: string;
  enabled: boolean;
  prompt: string;
  agentConfig: AmbientAgentConfig | null;
  /** The clients' `agent_uid`: the agent identity its runs are sent to (a factory's foreman), as a run's `agent_identity_uid`. */
  agentUid: string | null;
  /** Who created it, and who saved it last: the runs it starts are theirs (`owner`). */
  createdBy: ScheduleOwner;
  owner: ScheduleOwner;
  createdAt: string;
  updatedAt: string;
  /** The due time the scheduler acts on next; `null` while paused (or when the expression is never due again). */
  nextDueAt: string | null;
  /** The due time of the last run it started. */
  lastRanAt: string | null;
  /** Why the last due time started no run; cleared by the next run it starts. */
  lastSpawnError: string | null;
}

/** The principal a schedule acts for: the creator fields of its runs, and its team. */
export interface ScheduleOwner extends RunCreatorInfo {
  team_uid: string;
}
