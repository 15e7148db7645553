import * as v from 'valibot';
import { CreateScheduleSchema, UpdateScheduleSchema } from '../schedules/schemas.js';
import { ScheduleDeleteSchema, ScheduledAgentItemSchema, ScheduleListSchema } from '../schedules/view.js';
import { route } from './route.js';

// The schedules' routes (docs/schedules.md), at the paths the published clients call, joined into
// the route table (table.ts).

const schedule = { scheduleId: 'The schedule ID.' } as const;
/** Pause and resume take no body (an empty JSON object is accepted). */
const emptyBody = () => v.strictObject({});
const json = <S extends v.GenericSchema>(description: string, schema: S) => ({ description, schema });

export const SCHEDULE_ROUTES = {
  createSchedule: route({
    method: 'POST',
    area: 'api',
    path: '/agent/schedules',
    auth: 'api_key',
    tag: 'schedules',
    summary: 'Create a schedule: a cron expression (in a time zone) that starts a run of a prompt or skill at each due time.',
    params: {},
    body: { schema: CreateScheduleSchema, presence: 'required' },
    responses: { 201: json('The schedule.', ScheduledAgentItemSchema) },
    idempotent: true,
  }),
  listSchedules: route({
    method: 'GET',
    area: 'api',
    path: '/agent/schedules',
    auth: 'api_key',
    tag: 'schedules',
    summary: "The team's schedules, by name.",
    params: {},
    responses: { 200: json('The schedules.', ScheduleListSchema) },
  }),
  getSchedule: route({
    method: 'GET',
    area: 'api',
    path: '/agent/schedules/{scheduleId}',
    auth: 'api_key',
    tag: 'schedules',
    summary: 'One schedule, with its last and next run.',
    params: schedule,
    responses: { 200: json('The schedule.', ScheduledAgentItemSchema) },
  }),
  updateSchedule: route({
    method: 'PUT',
    area: 'api',
    path: '/agent/schedules/{scheduleId}',
    auth: 'api_key',
    tag: 'schedules',
    summary: 'Replace a schedule (prompt, agent_config, agent_uid and time_zone, when absent, keep their value).',
    params: schedule,
    body: { schema: UpdateScheduleSchema, presence: 'required' },
    responses: { 200: json('The schedule.', ScheduledAgentItemSchema) },
  }),
  deleteSchedule: route({
    method: 'DELETE',
    area: 'api',
    path: '/agent/schedules/{scheduleId}',
    auth: 'api_key',
    tag: 'schedules',
    summary: 'Delete a schedule: no further runs (runs it started stay).',
    params: schedule,
    responses: { 200: json('Deleted.', ScheduleDeleteSchema) },
  }),
  pauseSchedule: route({
    method: 'POST',
    area: 'api',
    path: '/agent/schedules/{scheduleId}/pause',
    auth: 'api_key',
    tag: 'schedules',
    summary: 'Pause a schedule (enabled: false): no run starts until it is resumed.',
    params: schedule,
    body: { schema: emptyBody(), presence: 'optional' },
    responses: { 200: json('The schedule.', ScheduledAgentItemSchema) },
  }),
  resumeSchedule: route({
    method: 'POST',
    area: 'api',
    path: '/agent/schedules/{scheduleId}/resume',
    auth: 'api_key',
    tag: 'schedules',
    summary: 'Resume a schedule (enabled: true) from its next due time; times missed while paused start nothing.',
    params: schedule,
    body: { schema: emptyBody(), presence: 'optional' },
    responses: { 200: json('The schedule.', ScheduledAgentItemSchema) },
  }),
} as const;
