import * as v from 'valibot';
import { parseOrThrow } from '../models/validate.js';

/**
 * Query of `GET /agent/runs/{runId}/transcript` (docs/run-api.md, "The transcript page"): `after`
 * an event id, the page shows the events after it; decimal digits only, as for the events' pages.
 */
export const TranscriptQuerySchema = v.strictObject({
  after: v.optional(v.pipe(v.string(), v.regex(/^\d{1,15}$/, 'must be an event id (decimal digits)'), v.transform(Number)), '0'),
});

/** The transcript page's query, checked (a 400 names what is wrong). */
export const parseTranscriptQuery = (input: Record<string, unknown>) => parseOrThrow(TranscriptQuerySchema, input, 'query');
