import stableStringify from 'fast-json-stable-stringify';
import type { ScheduleDefinition } from '../definitions/schemas.js';
import type { DefinitionAction, PlannedSchedule } from '../definitions/wire.js';
import type { FieldError } from '../errors.js';
import { isoTime } from '../util/clock.js';
import { newId } from '../util/ids.js';
import { parseCron } from './cron.js';
import type { ScheduleOwner, ScheduleRecord } from './records.js';

// The schedule files of an apply (docs/schedules.md, "Definition files"): what each
// `schedules/<name>.yaml` becomes. A file's schedule is the one of its name this factory's files
// made, else a new one; one the files made that has no file now is deleted with --prune.

export interface SchedulePlanInput {
  teamUid: string;
  factoryUid: string;
  files: readonly ScheduleDefinition[];
  /** The team's schedules (every factory's and the API's). */
  schedules: readonly ScheduleRecord[];
  /** The team's environment ids after the apply: what `config.environment_id` may name. */
  environmentIds: ReadonlySet<string>;
  /** Who applies: the runs' creator. */
  owner: ScheduleOwner;
  prune: boolean;
  now: number;
}

export interface SchedulePlan {
  errors: FieldError[];
  planned: PlannedSchedule[];
  put: ScheduleRecord[];
  delete: string[];
}

export function planSchedules(input: SchedulePlanInput): SchedulePlan {
  const plan: SchedulePlan = { errors: [], planned: [], put: [], delete: [] };
  const error = (path: string, detail: string) => plan.errors.push({ path, detail });
  const own = input.schedules.filter((s) => s.factoryUid === input.factoryUid);
  const claimed = new Set<string>();
  const seen = new Set<string>();
  for (const [i, d] of input.files.entries()) {
    if (seen.has(d.name)) {
      error(`schedules.${i}.name`, `a second schedule file named ${d.name}`);
      continue;
    }
    seen.add(d.name);
    const current = own.find((s) => s.name === d.name);
    const prompt = d.prompt ?? '';
    if (prompt.trim() === '' && !d.config?.skill_spec && (d.config?.skills?.length ?? 0) === 0)
      error(`schedules.${i}.prompt`, 'required unless config names a skill (skill_spec)');
    const environmentId = d.config?.environment_id;
    if (environmentId !== undefined && !input.environmentIds.has(environmentId))
      error(`schedules.${i}.config.environment_id`, `no environment ${environmentId} in this team`);
    const timeZone = d.time_zone ?? 'UTC';
    const cron = parseCron(d.cron_schedule, timeZone);
    const next = 'error' in cron ? null : cron.next(input.now);
    if (!('error' in cron) && next === null) error(`schedules.${i}.cron_schedule`, 'is never due again');
    const sameTimes = current?.enabled && d.enabled && current.cronSchedule === d.cron_schedule && current.timeZone === timeZone;
    const record: ScheduleRecord = {
      id: current?.id ?? newId(),
      teamUid: input.teamUid,
      factoryUid: input.factoryUid,
      name: d.name,
      cronSchedule: d.cron_schedule,
      timeZone,
      enabled: d.enabled,
      prompt,
      agentConfig: d.config ?? null,
      agentUid: null,
      createdBy: current?.createdBy ?? input.owner,
      owner: current?.owner ?? input.owner,
      createdAt: current?.createdAt ?? isoTime(input.now),
      updatedAt: isoTime(input.now),
      nextDueAt: sameTimes ? current.nextDueAt : d.enabled && next !== null ? isoTime(next) : null,
      lastRanAt: current?.lastRanAt ?? null,
      lastSpawnError: current?.lastSpawnError ?? null,
    };
    if (current) claimed.add(current.id);
    const changes = current ? changedKeys(current, record) : [];
    let action: DefinitionAction = current ? 'update' : 'create';
    if (action === 'update' && changes.length === 0) action = 'unchanged';
    if (action !== 'unchanged') plan.put.push({ ...record, owner: input.owner });
    plan.planned.push({ name: d.name, action, id: record.id, changes });
  }
  for (const s of own) {
    if (claimed.has(s.id)) continue;
    if (!input.prune) {
      error(
        'schedules',
        `schedule ${s.name} (${s.id}) has no file schedules/${s.name}.yaml: restore the file, or apply with --prune to delete it`,
      );
      continue;
    }
    plan.delete.push(s.id);
    plan.planned.push({ name: s.name, action: 'delete', id: s.id, changes: [] });
  }
  return plan;
}

/** The keys (snake_case, as the file names them after the CLI's conversion) whose value the apply changes. */
function changedKeys(current: ScheduleRecord, next: ScheduleRecord): string[] {
  const changes: string[] = [];
  if (current.cronSchedule !== next.cronSchedule) changes.push('cron_schedule');
  if (current.timeZone !== next.timeZone) changes.push('time_zone');
  if (current.enabled !== next.enabled) changes.push('enabled');
  if (current.prompt !== next.prompt) changes.push('prompt');
  if (stableStringify(current.agentConfig) !== stableStringify(next.agentConfig)) changes.push('config');
  return changes;
}
