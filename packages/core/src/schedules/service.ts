import { auditEvent } from '../audit/event.js';
import type { AuditEventKind } from '../audit/records.js';
import type { Principal } from '../auth/principal.js';
import { conflict, invalidRequest, notFound } from '../errors.js';
import { parseOrThrow } from '../models/validate.js';
import type { SkillCatalog } from '../skills/skill-catalog.js';
import type { Store } from '../store/store.js';
import { type Clock, isoTime } from '../util/clock.js';
import { newId, newOrderedId } from '../util/ids.js';
import { parseCron } from './cron.js';
import type { ScheduleOwner, ScheduleRecord } from './records.js';
import { scheduledRun } from './scheduled-run.js';
import { CreateScheduleSchema, UpdateScheduleSchema } from './schemas.js';
import { type ScheduledAgentItem, scheduleView } from './view.js';

/** A team's schedules at most (docs/schedules.md, "Limits"): each one is read at every pass of every scheduler. */
const MAX_SCHEDULES_PER_TEAM = 1000;

/** What the schedules' API works with (docs/schedules.md, "The API"). */
export interface ScheduleContext {
  store: Store;
  clock: Clock;
  /** Where a schedule's skill is checked at a save, as for a run request. */
  skills: SkillCatalog;
  /** Told after each change, so this process's schedulers look again at once. */
  onChange?: () => void;
}

/**
 * The schedules' API, as the published clients call it: team-wide, read with `read_runs`, changed
 * with `write_runs` (a schedule is runs started later; routes/scopes.ts). Every change is audited.
 */
export class ScheduleService {
  constructor(private readonly ctx: ScheduleContext) {}

  async create(p: Principal, input: unknown): Promise<ScheduledAgentItem> {
    const body = parseOrThrow(CreateScheduleSchema, input, 'schedule');
    if ((await this.ctx.store.schedules.list(p.team_uid)).length >= MAX_SCHEDULES_PER_TEAM)
      throw conflict(`the team has ${MAX_SCHEDULES_PER_TEAM} schedules, the most it may have: delete one first (docs/schedules.md)`);
    const now = this.ctx.clock.now();
    const owner = ownerOf(p);
    const record: ScheduleRecord = {
      id: newId(),
      teamUid: p.team_uid,
      factoryUid: null,
      name: body.name,
      cronSchedule: body.cron_schedule,
      timeZone: body.time_zone ?? 'UTC',
      enabled: body.enabled ?? true,
      prompt: body.prompt ?? '',
      agentConfig: body.agent_config ?? null,
      agentUid: body.agent_uid ?? null,
      createdBy: owner,
      owner,
      createdAt: isoTime(now),
      updatedAt: isoTime(now),
      nextDueAt: null,
      lastRanAt: null,
      lastSpawnError: null,
    };
    record.nextDueAt = await this.checked(record, now);
    return this.save(p, record, 'schedule.created');
  }

  async list(p: Principal): Promise<{ schedules: ScheduledAgentItem[] }> {
    return { schedules: (await this.ctx.store.schedules.list(p.team_uid)).map(scheduleView) };
  }

  async get(p: Principal, id: string): Promise<ScheduledAgentItem> {
    return scheduleView(await this.require(p, id));
  }

  /** `PUT`: `name`, `cron_schedule` and `enabled` given; the other fields, absent, keep their value. */
  async update(p: Principal, id: string, input: unknown): Promise<ScheduledAgentItem> {
    const body = parseOrThrow(UpdateScheduleSchema, input, 'schedule');
    const current = await this.requireOwn(p, id, 'change its file and apply');
    const now = this.ctx.clock.now();
    const record: ScheduleRecord = {
      ...current,
      name: body.name,
      cronSchedule: body.cron_schedule,
      timeZone: body.time_zone ?? current.timeZone,
      enabled: body.enabled,
      prompt: body.prompt ?? current.prompt,
      agentConfig: body.agent_config ?? current.agentConfig,
      agentUid: body.agent_uid ?? current.agentUid,
      owner: ownerOf(p),
      updatedAt: isoTime(now),
    };
    const nextDueAt = await this.checked(record, now);
    // The same times, still on: a due time already come (not yet started) is kept, not skipped.
    const sameTimes =
      current.enabled && record.enabled && current.cronSchedule === record.cronSchedule && current.timeZone === record.timeZone;
    record.nextDueAt = sameTimes ? current.nextDueAt : nextDueAt;
    return this.save(p, record, 'schedule.updated');
  }

  /** Pause: no due time starts a run until it is resumed. */
  async pause(p: Principal, id: string): Promise<ScheduledAgentItem> {
    const current = await this.requireOwn(p, id, 'set enabled: false in its file and apply');
    const now = this.ctx.clock.now();
    return this.save(p, { ...current, enabled: false, nextDueAt: null, updatedAt: isoTime(now) }, 'schedule.paused');
  }

  /** Resume: from the first due time after now; those missed while paused start nothing. */
  async resume(p: Principal, id: string): Promise<ScheduledAgentItem> {
    const current = await this.requireOwn(p, id, 'set enabled: true in its file and apply');
    if (current.enabled) return scheduleView(current);
    const now = this.ctx.clock.now();
    const record = { ...current, enabled: true, updatedAt: isoTime(now) };
    record.nextDueAt = nextDue(record, now);
    return this.save(p, record, 'schedule.resumed');
  }

  async delete(p: Principal, id: string): Promise<{ success: true }> {
    const current = await this.requireOwn(p, id, 'delete its file and apply with --prune');
    const audit = auditEvent(p, 'schedule.deleted', { type: 'schedule', id }, isoTime(this.ctx.clock.now()), { name: current.name });
    if (!(await this.ctx.store.schedules.delete(p.team_uid, id, audit))) throw notFound(`schedule ${id} not found`);
    return { success: true };
  }

  private async save(p: Principal, record: ScheduleRecord, kind: AuditEventKind): Promise<ScheduledAgentItem> {
    const audit = auditEvent(p, kind, { type: 'schedule', id: record.id }, record.updatedAt, {
      name: record.name,
      cron_schedule: record.cronSchedule,
      time_zone: record.timeZone,
      enabled: record.enabled,
    });
    await this.ctx.store.schedules.put(record, audit);
    this.ctx.onChange?.();
    return scheduleView((await this.ctx.store.schedules.get(record.teamUid, record.id)) ?? record);
  }

  /**
   * A schedule that can start a run: due again, and its prompt, skill and environment pass the
   * run API's checks now (as `POST /agent/run` would answer them). Its next due time when on.
   */
  private async checked(record: ScheduleRecord, now: number): Promise<string | null> {
    if (parseCronOrThrow(record).next(now) === null) throw invalidRequest('invalid schedule: cron_schedule: is never due again');
    if (record.prompt.trim() === '' && !record.agentConfig?.skill_spec && (record.agentConfig?.skills?.length ?? 0) === 0) {
      throw invalidRequest('invalid schedule: prompt: required unless agent_config names a skill (skill_spec)');
    }
    await scheduledRun(this.ctx.store, this.ctx.skills, record, isoTime(now), newOrderedId(now), isoTime(now));
    return nextDue(record, now);
  }

  /** One the API may change: a schedule a factory's file defines is changed by its file (as environments are). */
  private async requireOwn(p: Principal, id: string, advice: string): Promise<ScheduleRecord> {
    const found = await this.require(p, id);
    if (found.factoryUid !== null)
      throw conflict(
        `schedule ${found.name} is defined by factory ${found.factoryUid}'s file schedules/${found.name}.yaml: ${advice} (docs/definitions.md)`,
      );
    return found;
  }

  private async require(p: Principal, id: string): Promise<ScheduleRecord> {
    const found = await this.ctx.store.schedules.get(p.team_uid, id);
    if (!found) throw notFound(`schedule ${id} not found`);
    return found;
  }
}

/** The next due time after `now` of an enabled schedule, else `null`. */
function nextDue(record: ScheduleRecord, now: number): string | null {
  if (!record.enabled) return null;
  const next = parseCronOrThrow(record).next(now);
  return next === null ? null : isoTime(next);
}

function parseCronOrThrow(record: ScheduleRecord) {
  const cron = parseCron(record.cronSchedule, record.timeZone);
  if ('error' in cron) throw invalidRequest(`invalid schedule: cron_schedule: ${cron.error}`);
  return cron;
}

const ownerOf = (p: Principal): ScheduleOwner => ({
  type: p.type,
  uid: p.uid,
  team_uid: p.team_uid,
  ...(p.display_name !== undefined ? { display_name: p.display_name } : {}),
  ...(p.email !== undefined ? { email: p.email } : {}),
  ...(p.photo_url !== undefined ? { photo_url: p.photo_url } : {}),
});
