import * as v from 'valibot';
import { maxChars } from '../models/char-limit.js';
import { AmbientAgentConfigSchema } from '../models/config.js';
import { jsonObject } from '../models/json.js';
import { REQUEST_LIMITS } from '../models/requests.js';
import { isTimeZone, parseCron } from './cron.js';

// Bodies of the schedules' routes, as the published clients send them (oz-agent-sdk
// `schedules.create` / `update`; docs/schedules.md), plus `time_zone`, agentrun's own.

const SCHEDULE_LIMITS = { name: 200, cron: 256 } as const;

const name = v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), maxChars(SCHEDULE_LIMITS.name));
const cronSchedule = v.pipe(v.string(), v.maxLength(SCHEDULE_LIMITS.cron), v.trim(), v.minLength(1, 'must not be empty'));
const prompt = v.pipe(v.string(), maxChars(REQUEST_LIMITS.prompt));
const agentUid = v.pipe(v.string(), v.minLength(1), v.maxLength(256));
/** `mode` of the clients: accepted and not acted on, as for a run (docs/run-api.md). */
const mode = v.picklist(['normal', 'plan', 'orchestrate'], 'must be normal, plan or orchestrate');
const timeZone = v.pipe(v.string(), v.maxLength(64), v.check(isTimeZone, 'must be an IANA time zone such as UTC or Europe/Paris'));

/** The cron expression must read in its time zone (whether it is due again is the service's: it has the clock). */
export const cronChecks = <T extends { cron_schedule: string; time_zone?: string | undefined }>() =>
  v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const parsed = parseCron(dataset.value.cron_schedule, dataset.value.time_zone ?? 'UTC');
    if ('error' in parsed) {
      const message = `must be a five-field cron expression (minute hour day-of-month month day-of-week): ${parsed.error}`;
      addIssue({
        message,
        path: [{ type: 'object', origin: 'value', input: dataset.value, key: 'cron_schedule', value: dataset.value.cron_schedule }],
      });
    }
  });

/** `POST /agent/schedules`. */
export const CreateScheduleSchema = v.pipe(
  jsonObject({
    name,
    cron_schedule: cronSchedule,
    prompt: v.optional(prompt),
    agent_config: v.optional(AmbientAgentConfigSchema),
    agent_uid: v.optional(agentUid),
    mode: v.optional(mode),
    enabled: v.optional(v.boolean()),
    /** The clients' team-or-personal choice: every schedule here is the team's. */
    team: v.optional(v.boolean()),
    time_zone: v.optional(timeZone),
  }),
  cronChecks(),
);

/** `PUT /agent/schedules/{scheduleId}`: `name`, `cron_schedule` and `enabled` are required; the others, absent, keep their value. */
export const UpdateScheduleSchema = v.pipe(
  jsonObject({
    name,
    cron_schedule: cronSchedule,
    prompt: v.optional(prompt),
    enabled: v.boolean(),
    agent_config: v.optional(AmbientAgentConfigSchema),
    agent_uid: v.optional(agentUid),
    mode: v.optional(mode),
    time_zone: v.optional(timeZone),
  }),
  cronChecks(),
);

/** What a schedule file (`schedules/<name>.yaml`, definitions/schemas.ts) holds, beside its name. */
export const scheduleFileFields = {
  cron_schedule: cronSchedule,
  time_zone: v.optional(timeZone),
  prompt: v.optional(prompt),
  config: v.optional(AmbientAgentConfigSchema),
  enabled: v.optional(v.boolean(), true),
};
