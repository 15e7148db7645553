import type { Principal } from '../auth/principal.js';
import { RunAgentRequestSchema } from '../models/requests.js';
import { parseOrThrow } from '../models/validate.js';
import { type RequestedRun, runFromRequest } from '../run/run-request.js';
import type { SkillCatalog } from '../skills/skill-catalog.js';
import type { Store } from '../store/store.js';
import type { ScheduleRecord } from './records.js';

/**
 * The run a schedule starts at a due time (docs/schedules.md), made by the run API's own path
 * (run/run-request.ts): the same checks of the prompt, skill and environment, `source:
 * SCHEDULED_AGENT`, the schedule and due time in `schedule`, created in its owner's name.
 * Reads only; the scheduler stores it with the due time's claim. At a save, the same call checks
 * that the schedule can start a run at all.
 */
export function scheduledRun(
  store: Store,
  skills: SkillCatalog,
  s: ScheduleRecord,
  dueAt: string,
  runId: string,
  now: string,
): Promise<RequestedRun> {
  const request = parseOrThrow(
    RunAgentRequestSchema,
    {
      ...(s.prompt.trim() !== '' ? { prompt: s.prompt } : {}),
      ...(s.agentConfig !== null ? { config: s.agentConfig } : {}),
      ...(s.agentUid !== null ? { agent_identity_uid: s.agentUid } : {}),
      title: s.name,
    },
    'schedule',
  );
  const schedule = { schedule_id: s.id, schedule_name: s.name, cron_schedule: s.cronSchedule, due_at: dueAt };
  return runFromRequest(store, ownerPrincipal(s), request, { source: 'SCHEDULED_AGENT', schedule }, runId, now, skills);
}

/** The principal a schedule's runs are created by: its owner, in its team, with no powers beyond. */
function ownerPrincipal(s: ScheduleRecord): Principal {
  const { team_uid: _team, ...creator } = s.owner;
  return { ...creator, team_uid: s.teamUid };
}
