import * as v from 'valibot';
import { RUN_EVENT_TYPES } from '../store/run-events.js';
import { PageInfoSchema } from './run.js';

// A run's transcript on the wire (docs/run-api.md, "Run events"): the same event in a page of
// `GET /agent/runs/{runId}/events` and in the `data:` of a Server-Sent Event.

/**
 * The most bytes a page of `GET /agent/runs/{runId}/events` sends (its whole JSON body, UTF-8, as
 * sent): a page stops at this or at its `limit`, whichever comes first, and always holds at least
 * one event (docs/run-api.md, "A page"). 2 MiB holds three follow-ups at their worst (100,000
 * characters that each need a 6-byte escape) and twenty output lines at theirs, and is what a
 * socket's send buffer takes from a client that does not read.
 */
export const EVENT_PAGE_BYTES = 2 * 1024 * 1024;

export const RunEventViewSchema = v.object({
  /** 1, 2, 3, … per run: the cursor for `after`, and the SSE `id:`. */
  id: v.pipe(v.number(), v.integer()),
  at: v.string(),
  type: v.picklist(RUN_EVENT_TYPES),
  /** state: {from, to, status_message}; status: {message, session_id?, session_link?}; followup: {followup_id, message, creator_uid}; tool_call: {call_id, name, input, input_truncated?}; tool_result: {call_id, name?, output, truncated?, is_error?}; truncated: {limit}. */
  data: v.unknown(),
});
export type RunEventView = v.InferOutput<typeof RunEventViewSchema>;

export const ListRunEventsResponseSchema = v.object({
  events: v.array(RunEventViewSchema),
  page_info: PageInfoSchema,
});
export type ListRunEventsResponse = v.InferOutput<typeof ListRunEventsResponseSchema>;
