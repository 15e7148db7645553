import { ROUTES } from '../routes/table.js';
import type { ScheduleService } from '../schedules/service.js';
import { withKey } from './idempotency-key.js';
import type { IdempotentWrite } from './idempotent-write.js';
import type { JsonReaders } from './json-readers.js';
import type { OperationHandlers } from './operation.js';
import { jsonResponse } from './responses.js';

type ScheduleOperation =
  | 'createSchedule'
  | 'listSchedules'
  | 'getSchedule'
  | 'updateSchedule'
  | 'deleteSchedule'
  | 'pauseSchedule'
  | 'resumeSchedule';

/** The schedules' routes (docs/schedules.md), with the management API's body limit; create takes an `Idempotency-Key`. */
export function scheduleOperations(
  schedules: ScheduleService,
  { readJson, requireBody, readEmpty }: JsonReaders,
  idempotent: IdempotentWrite,
  bodyBytes: number,
): OperationHandlers<ScheduleOperation> {
  const body = async (request: Request, operation: 'createSchedule' | 'updateSchedule') =>
    requireBody(await readJson(request, ROUTES[operation].body.schema, bodyBytes), 'request');
  return {
    createSchedule: async (ctx) => {
      const input = await body(ctx.request, 'createSchedule');
      return idempotent(ctx.principal, withKey(ctx.request, 'create schedule', input).idempotency, async () => ({
        status: 201,
        body: await schedules.create(ctx.principal, input),
      }));
    },
    listSchedules: async ({ principal }) => jsonResponse(await schedules.list(principal)),
    getSchedule: async ({ principal }, { scheduleId }) => jsonResponse(await schedules.get(principal, scheduleId)),
    updateSchedule: async ({ principal, request }, { scheduleId }) =>
      jsonResponse(await schedules.update(principal, scheduleId, await body(request, 'updateSchedule'))),
    deleteSchedule: async ({ principal }, { scheduleId }) => jsonResponse(await schedules.delete(principal, scheduleId)),
    pauseSchedule: async ({ principal, request }, { scheduleId }) => {
      await readEmpty(request, 'pause');
      return jsonResponse(await schedules.pause(principal, scheduleId));
    },
    resumeSchedule: async ({ principal, request }, { scheduleId }) => {
      await readEmpty(request, 'resume');
      return jsonResponse(await schedules.resume(principal, scheduleId));
    },
  };
}
