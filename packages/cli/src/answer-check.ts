import { type AnswerCheck, APIResponseError } from '@agentrun/client';
import { ROUTES } from '@agentrun/core/api';
import * as v from 'valibot';
import { describeIssues } from './issues.js';

/**
 * Every JSON answer the command line gets is checked against the route table's schema for its
 * operation and status (core's ROUTES, the schemas the server answers with) before anything is
 * printed from it, since a broken or hostile server may answer anything: a wrongly shaped answer is an `APIResponseError`, exit 3
 * (docs/cli.md, "Exit codes"), never a crash (70) or exit 0 with `undefined` in the table. The
 * schemas are `v.object`, not strict, so a newer server's extra fields pass.
 */
export const checkAnswer: AnswerCheck = (operationId, status, body) => {
  const responses = ROUTES[operationId].responses as Record<number, { schema?: v.GenericSchema }>;
  // A success status the table does not list (a 200 where it says 201) is held to the listed one's shape.
  const schema = responses[status]?.schema ?? Object.values(responses).find((response) => response.schema)?.schema;
  if (schema === undefined) return;
  const result = v.safeParse(schema, body);
  if (!result.success)
    throw new APIResponseError(`the server's answer to ${operationId} is not what the API answers: ${describeIssues(result.issues)}`);
};

/** One event of a run's live transcript, checked as `checkAnswer` checks pages (the client checks only its `id`). */
export function checkRunEvent(event: unknown): void {
  const item = ROUTES.listRunEvents.responses[200].schema.entries.events.item;
  const result = v.safeParse(item, event);
  if (!result.success) throw new APIResponseError(`an event of the run's stream is not a run event: ${describeIssues(result.issues)}`);
}
