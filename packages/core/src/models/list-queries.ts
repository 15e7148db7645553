import * as v from 'valibot';
import { ARTIFACT_TYPES } from '../artifacts/model.js';
import { AUDIT_EVENT_KINDS } from '../audit/records.js';
import { RUN_SORT_KEYS } from '../run/list-query.js';
import { RUN_SOURCES, RUN_STATES } from './run-state.js';
import { parseTimestamp } from './timestamps.js';

/**
 * The one rule for list queries, used by every GET that takes parameters (`GET /agent/runs`, a
 * webhook's delivery log). `http/query.ts` turns the query string into an object (repeatable
 * parameters as arrays, any other given twice is a 400, NUL or an unpaired surrogate is a 400); the
 * strict schemas here then refuse unknown parameters and malformed values. `limit` is decimal
 * digits only: `1e2`, `0x10`, `+5`, ` 5` and `5.0` are 400s. docs/run-api.md ("List runs") and
 * docs/management-api.md ("The delivery log") list them.
 */

/** `limit`: decimal digits, 1 to `max`; `fallback` when absent. */
const limitParam = (max: number, fallback: number) => {
  const message = `must be an integer from 1 to ${max}`;
  return v.optional(
    v.pipe(v.string(), v.regex(/^\d{1,6}$/, message), v.transform(Number), v.minValue(1, message), v.maxValue(max, message)),
    String(fallback),
  );
};

/** `cursor`: opaque here; each list decodes and checks its own (run/cursor.ts, control/delivery-views.ts). */
const cursorParam = v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(4096)));

/**
 * An instant: RFC 3339 (`Z` or an offset), a real calendar date, in the years 0001–9999 once
 * normalised to UTC; without an offset it is read as UTC (Python's `datetime.isoformat()` of a
 * naive datetime). Output: the stored form, `2026-01-02T03:04:05.000Z`.
 */
const timestampParam = v.optional(
  v.pipe(
    v.string(),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const instant = parseTimestamp(dataset.value);
      if (instant === undefined) {
        addIssue({ message: 'must be an RFC 3339 timestamp of a real instant in the years 0001 to 9999 (UTC)' });
        return NEVER;
      }
      return instant;
    }),
  ),
);

const filterText = v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(256)));

const LIST_RUNS_LIMITS = { max: 500, default: 20 } as const;

/**
 * Query of `GET /agent/runs`: every parameter either published client (`oz-agent-sdk` for
 * TypeScript and Python) sends. `state` is repeatable; every other parameter appears at most
 * once. `skill` and `config_name` are aliases of `skill_spec` and `name`. `metadata[key]=value`
 * pairs are taken out before this schema (run-service.ts).
 */
export const ListRunsQuerySchema = v.strictObject({
  limit: limitParam(LIST_RUNS_LIMITS.max, LIST_RUNS_LIMITS.default),
  cursor: cursorParam,
  sort_by: v.optional(v.picklist(RUN_SORT_KEYS, `must be one of ${RUN_SORT_KEYS.join(', ')}`), 'updated_at'),
  sort_order: v.optional(v.picklist(['desc', 'asc'], 'must be desc or asc'), 'desc'),
  state: v.optional(v.pipe(v.array(v.picklist(RUN_STATES, `must be one of ${RUN_STATES.join(', ')}`)), v.maxLength(RUN_STATES.length * 2))),
  name: filterText,
  /** Seed 4.2's name for `name`. */
  config_name: filterText,
  model_id: filterText,
  creator: filterText,
  source: v.optional(v.picklist(RUN_SOURCES, `must be one of ${RUN_SOURCES.join(', ')}`)),
  created_after: timestampParam,
  created_before: timestampParam,
  updated_after: timestampParam,
  environment_id: filterText,
  skill_spec: filterText,
  skill: filterText,
  q: filterText,
  factory_uid: filterText,
  automation_id: filterText,
  /** Runs started by this run, or by runs it started, and so on (run/record.ts `ancestorRunIds`). */
  ancestor_run_id: filterText,
  /** Runs a schedule started (docs/schedules.md). */
  schedule_id: filterText,
  /** Runs holding an artifact of this type (docs/artifacts.md); `EXTERNAL_REFERENCE`, which agentrun never stores, matches nothing. */
  artifact_type: v.optional(v.picklist([...ARTIFACT_TYPES, 'EXTERNAL_REFERENCE'])),
  // Accepted for the clients; agentrun runs run on the host's executor, so these match nothing
  // except `execution_location=REMOTE` and an `executor` equal to the creator (docs/run-api.md).
  execution_location: v.optional(v.picklist(['LOCAL', 'REMOTE'], 'must be LOCAL or REMOTE')),
  executor: filterText,
});
export type ListRunsQuery = v.InferOutput<typeof ListRunsQuerySchema>;

/** Parameters of `GET /agent/runs` that may be repeated in the query string. */
export const REPEATABLE_QUERY_PARAMS: ReadonlySet<string> = new Set(['state']);

/** `metadata[key]=value` pairs of the Python client (object notation in the query string). */
export const METADATA_PARAM = /^metadata\[([A-Za-z0-9._-]{1,64})\]$/;

/** Query of a webhook's delivery log. */
export const ListDeliveriesQuerySchema = v.strictObject({
  limit: limitParam(200, 50),
  cursor: cursorParam,
});

/** Query of a factory source's applies (docs/repositories.md, "Factories from a repository"). */
export const ListSourceAppliesQuerySchema = v.strictObject({
  limit: limitParam(100, 20),
  cursor: cursorParam,
});

/**
 * Query of a run's events (docs/run-api.md, "Run events"): `after` an event id (the previous
 * page's `next_cursor`, or SSE's `Last-Event-ID`), decimal digits only; `limit` 1 to 1000.
 */
export const ListRunEventsQuerySchema = v.strictObject({
  after: v.optional(v.pipe(v.string(), v.regex(/^\d{1,15}$/, 'must be an event id (decimal digits)'), v.transform(Number)), '0'),
  limit: limitParam(1000, 100),
});

/**
 * Query of the audit log (docs/management-api.md, "The audit log"): `kind` is repeatable (any of
 * them), `actor` and `target` are ids, `since` (inclusive) and `until` (exclusive) instants.
 */
export const ListAuditQuerySchema = v.strictObject({
  limit: limitParam(200, 50),
  cursor: cursorParam,
  kind: v.optional(
    v.pipe(
      v.array(v.picklist(AUDIT_EVENT_KINDS, `must be one of ${AUDIT_EVENT_KINDS.join(', ')}`)),
      v.maxLength(AUDIT_EVENT_KINDS.length * 2),
    ),
  ),
  actor: filterText,
  target: filterText,
  since: timestampParam,
  until: timestampParam,
});

/** Parameters of the audit log's query that may be repeated. */
export const AUDIT_REPEATABLE_PARAMS: ReadonlySet<string> = new Set(['kind']);
