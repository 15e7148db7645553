import type { ClaimRunInput, CreateRunInput, RunPatch, RunState, TransitionRunInput } from '@agentrun/core/store';
import { RUN_EVENTS_PER_RUN, RUN_STATES } from '@agentrun/core/store';
import { type RawBuilder, sql } from 'kysely';
import type { Db } from './db.js';
import { notifyChannel } from './notify-channel.js';
import { json, RUN_COLUMNS, RUN_JSON_COLUMNS, RUN_ROW_COLUMNS, runToValues } from './rows.js';
import { type Prepared, prepared, Slot, slots, templates } from './statements.js';
import type { Tables } from './tables.js';

const isJsonColumn = (column: string | undefined) => column !== undefined && RUN_JSON_COLUMNS.has(column);

/** A jsonb parameter: JSON text, or the slot it is sent in (statements.ts). */
const jsonParam = (value: unknown) => (value instanceof Slot ? value : json(value));

/** The run's columns as `runFromRow` reads them, from the row (or CTE) `from`: never `*` (statements.ts). */
const runColumns = (from?: string) => sql.join(RUN_ROW_COLUMNS.map((c) => sql.ref(from ? `${from}.${c}` : c)));

/**
 * A statement and the values of one call (statements.ts). The claim and the transition answer the
 * run as one JSON column, `run` (`RunJson`): `pg` sets up a parser per column of every answer and
 * parses each timestamp into a Date, which for a run's 28 columns cost more than the JSON text.
 */
export interface Call {
  statement: Prepared;
  values: unknown[];
  /**
   * The statement tells the runs' triggers not to notify (`DEFER`): the store publishes what it
   * wrote once it committed (deferred-notifications.ts). A deferred claim or transition answers
   * `last_event_id` and `events_before` beside the run, to tell the events it appended.
   */
  deferred: boolean;
}

/**
 * Sets `agentrun.notify` to `deferred` for the writing transaction: the runs'
 * triggers then skip their `pg_notify`, whose lock at commit would be held through the commit's
 * WAL flush (docs/production.md, "Notifications after the commit"). Selected in the
 * statement's FROM, so it is set before any row is written; AFTER triggers run at the end of it.
 */
const DEFER = sql`set_config('agentrun.notify', 'deferred', true)`;
const deferral = sql`deferral AS MATERIALIZED (SELECT ${DEFER})`;

/**
 * The queue's hot statements of one store, their text built once per shape (statements.ts):
 * the create, the claim and the compare-and-set transition.
 */
export function runStatements(db: Db, t: Tables) {
  const shapes = templates(db);
  const insertValues = RUN_COLUMNS.map((c, i) =>
    isJsonColumn(c) ? sql`$${sql.raw(String(i + 1))}::jsonb` : sql`$${sql.raw(String(i + 1))}`,
  );
  // Answers nothing: the created run is the one given (runs.ts). Deferred, its notification is the
  // store's to publish after the commit (the trigger skips it: `DEFER`).
  const columns = sql.join(RUN_COLUMNS.map((c) => sql.ref(c)));
  const insert = prepared(sql`INSERT INTO ${t.runs} (${columns}) VALUES (${sql.join(insertValues)})`.compile(db).sql);
  const insertDeferred = prepared(
    sql`INSERT INTO ${t.runs} (${columns}) SELECT ${sql.join(insertValues)} FROM (SELECT ${DEFER}) deferral`.compile(db).sql,
  );
  return {
    /**
     * The create, its notification `deferred` or from the trigger; with attachments, one statement
     * of its own (`insertRunSql`), which notifies from the trigger.
     */
    insert(input: CreateRunInput, deferred: boolean): Call {
      if (input.attachments.length === 0)
        return { statement: deferred ? insertDeferred : insert, values: runToValues(input.run), deferred };
      // Rare: compiled per call, sent unnamed.
      const compiled = insertRunSql(t, input).compile(db);
      return { statement: { name: '', text: compiled.sql }, values: [...compiled.parameters], deferred: false };
    },
    claim(input: ClaimRunInput, path: readonly RunState[], deferred: boolean): Call {
      const { values, slot } = slots();
      const { start } = input;
      const shadow: ClaimRunInput = {
        workerId: slot(input.workerId) as never,
        now: slot(input.now) as never,
        leaseExpiresAt: slot(input.leaseExpiresAt) as never,
        ...(input.host !== undefined ? { host: slot(input.host) as never } : {}),
        ...(input.unrouted === false ? { unrouted: false } : {}),
        ...(input.followups ? { followups: true } : {}),
        ...(start
          ? {
              start: {
                statusMessage: slot(json(start.statusMessage)) as never,
                startedAt: slot(start.startedAt) as never,
                ...(start.sessionLinkBase !== undefined ? { sessionLinkBase: slot(start.sessionLinkBase) as never } : {}),
              },
            }
          : {}),
      };
      return {
        ...shapes(JSON.stringify(['claim', path, deferred, shadow]), () => claimSql(t, shadow, path, deferred), values),
        deferred,
      };
    },
    /** `defer`: the store's choice (runs.ts); a follow-up's write never defers. */
    transition(input: TransitionRunInput, defer: boolean): Call {
      const { values, slot } = slots();
      // A change of state fires the runs' trigger, whose `run.changed` then tells the events this
      // statement appends; else the statement notifies them itself.
      const stateChanges = input.patch.state !== undefined && input.patch.state !== input.expect.state;
      const changesState = input.transcript?.state === true && stateChanges;
      const p = input.patch;
      const patch: Record<string, unknown> = {};
      if (p.state !== undefined) patch.state = slot(p.state);
      if (p.statusMessage !== undefined) patch.statusMessage = slot(json(p.statusMessage));
      if (p.startedAt !== undefined) patch.startedAt = slot(p.startedAt);
      if (p.sessionId !== undefined) patch.sessionId = slot(p.sessionId);
      if (p.sessionLink !== undefined) patch.sessionLink = slot(p.sessionLink);
      if (p.attempts !== undefined) patch.attempts = slot(p.attempts);
      if (p.requestUsage !== undefined) patch.requestUsage = slot(json(p.requestUsage));
      if (p.lease !== undefined)
        patch.lease = p.lease === null ? null : { workerId: slot(p.lease.workerId), expiresAt: slot(p.lease.expiresAt) };
      const { expect: e, followup: f } = input;
      // The same input with every per-call value a slot: its JSON is the shape's key.
      const shadow = {
        runId: slot(input.runId),
        ...(input.teamUid !== undefined ? { teamUid: slot(input.teamUid) } : {}),
        expect: {
          state: slot(e.state),
          ...(e.workerId !== undefined ? { workerId: slot(e.workerId) } : {}),
          ...(e.leaseExpiredBy !== undefined ? { leaseExpiredBy: slot(e.leaseExpiredBy) } : {}),
        },
        patch,
        now: slot(input.now),
        ...(input.transcript
          ? {
              transcript: {
                state: input.transcript.state,
                events: (input.transcript.events ?? []).map((x) => slot(json({ at: x.at, type: x.type, data: x.data ?? null }))),
              },
            }
          : {}),
        ...(f
          ? { followup: { id: slot(f.id), message: slot(f.message), createdAt: slot(f.createdAt), creatorUid: slot(f.creatorUid) } }
          : {}),
        ...(input.followups ? { followups: true } : {}),
      } as unknown as TransitionRunInput;
      // A follow-up's notification comes from its own trigger, in the writing transaction:
      // such a write notifies all from there, in the order it always did.
      const deferred = defer && f === undefined;
      return {
        ...shapes(
          JSON.stringify(['transition', changesState, stateChanges, deferred, shadow]),
          () => transitionSql(t, shadow, changesState, !stateChanges, deferred),
          values,
        ),
        deferred,
      };
    },
  };
}

/**
 * The run and its attachments in one statement (atomic without a transaction): the
 * attachments insert selects from the inserted run, so neither exists without the other.
 * For `runs.create` with attachments and the schedules' fires (the hot create is `runStatements`'s);
 * `deliveries.accept` writes its runs in `agentrun_accept_one` (migrations/baseline/ingress.ts) from the same
 * columns (`runToRow`).
 */
export function insertRunSql(t: Tables, input: CreateRunInput): RawBuilder<unknown> {
  const values = runToValues(input.run).map((v, i) => (isJsonColumn(RUN_COLUMNS[i]) ? sql`${v}::jsonb` : sql`${v}`));
  const insert = sql`INSERT INTO ${t.runs} (${sql.join(RUN_COLUMNS.map((c) => sql.ref(c)))}) VALUES (${sql.join(values)}) RETURNING ${runColumns()}`;
  if (input.attachments.length === 0) return insert;
  const files = input.attachments.map((a) => sql`(${a.fileName}, ${a.mimeType}, ${Buffer.from(a.data)}::bytea)`);
  return sql`WITH inserted AS (${insert}),
    files AS (
      INSERT INTO ${t.run_attachments} (run_id, file_name, mime_type, data)
      SELECT inserted.id, f.file_name, f.mime_type, f.data
      FROM inserted, (VALUES ${sql.join(files)}) AS f (file_name, mime_type, data)
    )
    SELECT ${runColumns('inserted')} FROM inserted`;
}

/**
 * The UPDATE of a compare-and-set transition; RETURNING the run when it applied. Its transcript
 * lines (`input.transcript`) are appended by the same statement (`withEvents`).
 */
function transitionSql(
  t: Tables,
  input: TransitionRunInput,
  changesState: boolean,
  notify: boolean,
  deferred: boolean,
): RawBuilder<unknown> {
  const sets = patchAssignments(input.patch);
  sets.push(sql`updated_at = GREATEST(r.updated_at, ${input.now}::timestamptz)`);
  const where = [sql`r.id = ${input.runId}`, sql`r.state = ${input.expect.state}`];
  if (input.teamUid !== undefined) where.push(sql`r.team_uid = ${input.teamUid}`);
  if (input.expect.workerId !== undefined) where.push(sql`r.lease_worker_id = ${input.expect.workerId}`);
  if (input.expect.leaseExpiredBy !== undefined) where.push(sql`r.lease_expires_at <= ${input.expect.leaseExpiredBy}::timestamptz`);
  const events: RawBuilder<unknown>[] = [
    ...(changesState ? [stateEventJson(sql`${input.expect.state}::text`, sql`w.state`, sql`w.status_message`)] : []),
    ...(input.transcript?.events ?? []).map((e) => sql`${jsonParam(e)}::jsonb`),
  ];
  const f = input.followup;
  // The follow-up is written only if the update applied: it selects from the updated row.
  const followup = f
    ? [
        sql`followup AS (
      INSERT INTO ${t.run_followups} (id, run_id, message, created_at, creator_uid)
      SELECT ${f.id}, id, ${f.message}, ${f.createdAt}::timestamptz, ${f.creatorUid} FROM w
    )`,
      ]
    : [];
  if (events.length === 0) {
    const update = sql`UPDATE ${t.runs} r SET ${sql.join(sets)}${deferred ? sql` FROM deferral` : sql``}
      WHERE ${sql.join(where, sql` AND `)} RETURNING ${runColumns('r')}`;
    return sql`WITH ${deferred ? sql`${deferral}, ` : sql``}w AS (${update})${f ? sql`, ${sql.join(followup)}` : sql``}
      SELECT row_to_json(w) AS run FROM w`;
  }
  // The counter is read from the row this statement locks first: see withEvents.
  sets.push(sql`last_event_id = ${eventsAfter(sql`o.last_event_id`, events.length)}`);
  // `locked_xmin`: the transaction that wrote the version of the run this statement locked (the
  // newest, when another write committed after the statement's snapshot: READ COMMITTED re-reads it).
  const o = sql`o AS MATERIALIZED (SELECT id, last_event_id, xmin AS locked_xmin FROM ${t.runs} WHERE id = ${input.runId} FOR NO KEY UPDATE)`;
  const update = sql`UPDATE ${t.runs} r SET ${sql.join(sets)} FROM o${deferred ? sql`, deferral` : sql``}
    WHERE r.id = o.id AND ${sql.join(where, sql` AND `)}
    RETURNING ${runColumns('r')}, r.last_event_id, o.last_event_id AS events_before, o.locked_xmin`;
  const locked = deferred ? sql`${o}, ${deferral}` : o;
  return withEvents(t, locked, update, events, notify && !deferred, followup, [
    ...(input.followups ? [completeFollowups(t)] : []),
    ...(deferred ? EVENT_COUNTERS : []),
  ]);
}

/**
 * The follow-ups of the written run `w` (oldest first) as one JSON column, `outcome_followups`, or
 * NULL when this statement's read of them may be incomplete (`TransitionRunInput.followups`). The
 * read sees what was committed before the statement's snapshot; a follow-up is written by a
 * compare-and-set on the run's row, so one committed after the snapshot but before this statement
 * took the row left a newer version of the row than the snapshot's: its writer (`xmin`) differs
 * from the snapshot version's, and the caller reads again after the commit (docs/executors.md,
 * "Statements per run"). One that comes after this statement took the row waits for its commit
 * and finds the run finished. Any other write in between (a heartbeat) only costs that read.
 */
const completeFollowups = (t: Tables) =>
  sql`CASE WHEN w.locked_xmin = (SELECT s.xmin FROM ${t.runs} s WHERE s.id = w.id) THEN (
    SELECT coalesce(jsonb_agg(f ORDER BY f.seq), '[]'::jsonb) FROM ${t.run_followups} f WHERE f.run_id = w.id
  ) END AS outcome_followups`;

/**
 * The claim (`RunStore.claimNext`): the oldest run in the path's first state, locked with SKIP
 * LOCKED so concurrent claimers each take a different one, moved to the path's last state with
 * the start's fields when given, and a `state` event per step of the path appended, in one statement.
 */
function claimSql(t: Tables, input: ClaimRunInput, path: readonly RunState[], deferred: boolean): RawBuilder<unknown> {
  // The path's states are written into the text as literals, never sent as parameters: with
  // `state = $1` a generic plan cannot use the queue's partial indexes (their WHERE names a state), so
  // PostgreSQL would plan the claim anew on every call (0.3 ms; bench/README.md, "What was
  // tried"). The states are the state machine's constants, one text per path (`templates`).
  const from = stateLiteral(path[0] as RunState);
  const to = stateLiteral(path[path.length - 1] as RunState);
  const steps = path.length - 1;
  const sets = [
    sql`state = ${to}`,
    sql`attempts = r.attempts + 1`,
    sql`lease_worker_id = ${input.workerId}`,
    sql`lease_expires_at = ${input.leaseExpiresAt}::timestamptz`,
    sql`updated_at = GREATEST(r.updated_at, ${input.now}::timestamptz)`,
    sql`last_event_id = ${eventsAfter(sql`next.last_event_id`, steps)}`,
  ];
  const { start } = input;
  if (start) {
    sets.push(sql`status_message = ${jsonParam(start.statusMessage)}::jsonb`);
    sets.push(sql`started_at = COALESCE(r.started_at, ${start.startedAt}::timestamptz)`);
    sets.push(sql`session_id = COALESCE(r.session_id, r.id)`);
    if (start.sessionLinkBase !== undefined) sets.push(sql`session_link = COALESCE(r.session_link, ${start.sessionLinkBase} || r.id)`);
  }
  // Each step tells the status the run had then: the one before the claim, the start's at the end.
  const events = path
    .slice(1)
    .map((state, i) =>
      stateEventJson(
        sql`${stateLiteral(path[i] as RunState)}::text`,
        sql`${stateLiteral(state)}::text`,
        i === steps - 1 ? sql`w.status_message` : sql`w.status_before`,
      ),
    );
  // Materialized: a subquery joined in the UPDATE's FROM may be scanned again per row, and with
  // SKIP LOCKED a second scan finds another run.
  const next = sql`next AS MATERIALIZED (${nextRun(t, input, from)})`;
  const update = sql`UPDATE ${t.runs} r SET ${sql.join(sets)} FROM next${deferred ? sql`, deferral` : sql``}
    WHERE r.id = next.id AND r.state = ${from}
    RETURNING ${runColumns('r')}, r.last_event_id, next.last_event_id AS events_before, next.status_message AS status_before`;
  // The follow-ups, when asked, as one JSON column of the answer (runs.ts turns them into records).
  const followups = input.followups
    ? [
        sql`(SELECT coalesce(jsonb_agg(f ORDER BY f.seq), '[]'::jsonb) FROM ${t.run_followups} f WHERE f.run_id = w.id) AS claimed_followups`,
      ]
    : [];
  // Always a change of state, whose `run.changed` tells the appended events: deferred, the
  // store publishes it after the commit (`DEFER`), from the answer's event counters.
  if (!deferred) return withEvents(t, next, update, events, false, [], followups);
  return withEvents(t, sql`${next}, ${deferral}`, update, events, false, [], [...followups, ...EVENT_COUNTERS]);
}

/**
 * How many runs of each queue one claim may pass over (locked by other claims, or taken since its
 * snapshot) before it gives up on that queue: more than the claims a fleet has under way at once.
 * A claim that gives up finds the other queue's run or none, and its worker claims again at its
 * next wake or poll (docs/operations.md, "Worker hosts").
 */
const CLAIM_CANDIDATES = 100;

/**
 * The run a claim takes, locked: the oldest in the first state of the claim's queues (core
 * worker/worker-hosts.ts `takesRun`, in SQL): its host's, and those routed nowhere unless
 * `unrouted` is false (docs/operations.md, "Worker hosts"). Each queue is a partial index of its
 * own (migrations/0003_worker_hosts.ts), walked oldest first, so runs queued for other hosts are
 * never read, however many wait (bench/README.md, "claim-routes: a host's backlog").
 */
function nextRun(t: Tables, input: ClaimRunInput, from: RawBuilder<unknown>) {
  // The conditions of the queues on the column `host` (of the table, or of the run `r`).
  const on = (host: RawBuilder<unknown>) => [
    ...(input.host !== undefined ? [sql`${host} = ${input.host}`] : []),
    ...(input.unrouted !== false ? [sql`${host} IS NULL`] : []),
  ];
  const queues = on(sql.raw('worker_host'));
  const [only] = queues;
  if (queues.length !== 2) {
    return sql`SELECT id, last_event_id, status_message FROM ${t.runs} WHERE state = ${from} AND ${only ?? sql`false`}
      ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`;
  }
  // Both queues, merged oldest first (a Merge Append of the two index scans, read without
  // locking), and the runs locked one at a time in that order until one is free: only the run
  // taken is locked. Locking each queue's oldest and keeping the older would hold the other one
  // locked until the claim commits, and a concurrent claim skipping it could find nothing while
  // it waits. The lock re-reads the run (READ COMMITTED): one taken by another claim since the
  // statement's snapshot fails the run's own conditions and is passed over. Each queue's scan is
  // capped (`CLAIM_CANDIDATES`): a LIMIT is what makes PostgreSQL plan it as an index scan read
  // lazily, not a sort of the whole queue; the Limit node reads no further than the merge asks.
  const branches = queues.map(
    (queue) => sql`(SELECT id, created_at FROM ${t.runs} WHERE state = ${from} AND ${queue}
        ORDER BY created_at, id LIMIT ${sql.lit(CLAIM_CANDIDATES)})`,
  );
  return sql`SELECT r.id, r.last_event_id, r.status_message
      FROM (${sql.join(branches, sql` UNION ALL `)}) q JOIN ${t.runs} r ON r.id = q.id
      WHERE r.state = ${from} AND (${sql.join(on(sql.raw('r.worker_host')), sql` OR `)})
      ORDER BY q.created_at, q.id LIMIT 1 FOR UPDATE OF r SKIP LOCKED`;
}

/** The last event id before and after a deferred write, in its answer: what it appended (runs.ts). */
const EVENT_COUNTERS = [sql`w.last_event_id`, sql`w.events_before`];

/** A state of the state machine as a literal of the statement's text (only its constants, never input). */
const stateLiteral = (state: RunState) => {
  if (!RUN_STATES.includes(state)) throw new Error(`not a run state: ${state}`);
  return sql.lit(state);
};

/** A `state` event as JSON, from SQL expressions over the written row `w` (run/transcript.ts `stateEvent`). */
const stateEventJson = (from: RawBuilder<unknown>, to: RawBuilder<unknown>, status: RawBuilder<unknown>) =>
  sql`jsonb_build_object('at', w.updated_at, 'type', 'state', 'data',
    jsonb_build_object('from', ${from}, 'to', ${to}, 'status_message', ${status}->>'message'))`;

/** The last event id after appending `n` events to a log whose last is `before`: capped as `agentrun_append_run_events` caps it. */
const eventsAfter = (before: RawBuilder<unknown>, n: number) =>
  sql`CASE WHEN ${before} >= ${RUN_EVENTS_PER_RUN} THEN ${before}
    WHEN ${n} > GREATEST(${RUN_EVENTS_PER_RUN - 1} - ${before}, 0) THEN ${RUN_EVENTS_PER_RUN}
    ELSE ${before} + ${n} END`;

/**
 * A run write (`update` over the row `locked` selects, RETURNING the row and `events_before`, its last event id before) with
 * its transcript lines appended by the same statement, as `agentrun_append_run_events`
 * (migrations/baseline/runs.ts) appends them: numbered from the counter on the run's row (read from the row the statement
 * locked, so no append of another transaction can come between), capped at `RUN_EVENTS_PER_RUN`
 * with one `truncated` marker, and `run.event` notified: by the statement when `notify`, else by
 * the runs' trigger (a change of state: its `run.changed` carries the last id). Nothing is appended when the write did
 * not apply. `w` is the written row in the event expressions.
 */
function withEvents(
  t: Tables,
  locked: RawBuilder<unknown>,
  update: RawBuilder<unknown>,
  events: readonly RawBuilder<unknown>[],
  notify: boolean,
  more: readonly RawBuilder<unknown>[],
  columns: readonly RawBuilder<unknown>[] = [],
) {
  const cap = RUN_EVENTS_PER_RUN;
  return sql`WITH ${locked}, w AS (${update}),
    appended AS (
      INSERT INTO ${t.run_events} (run_id, id, at, type, data)
      SELECT w.id, w.events_before + e.ord, (e.value->>'at')::timestamptz, e.value->>'type', e.value->'data'
      FROM w, jsonb_array_elements(jsonb_build_array(${sql.join(events)})) WITH ORDINALITY AS e (value, ord)
      WHERE w.events_before + e.ord <= ${cap - 1}
      UNION ALL
      SELECT w.id, ${cap}, w.updated_at, 'truncated', jsonb_build_object('limit', ${cap}::bigint)
      FROM w WHERE w.last_event_id = ${cap} AND w.events_before < ${cap}
    )${more.length > 0 ? sql`, ${sql.join(more)}` : sql``}
    SELECT row_to_json(x) AS run FROM (
      SELECT ${runColumns('w')}${columns.length > 0 ? sql`, ${sql.join(columns)}` : sql``} FROM w${
        notify
          ? sql`, (
        SELECT count(pg_notify(${sql.lit(notifyChannel(t.schema))},
          json_build_object('type', 'run.event', 'runId', w.id, 'eventId', w.last_event_id)::text)) AS notified
        FROM w WHERE w.last_event_id > w.events_before
      ) n`
          : sql``
      }
    ) x`;
}

/** SET assignments for the fields a patch gives (`undefined` leaves a field, `null` clears it). */
function patchAssignments(patch: RunPatch): RawBuilder<unknown>[] {
  const sets: RawBuilder<unknown>[] = [];
  if (patch.state !== undefined) sets.push(sql`state = ${patch.state}`);
  if (patch.statusMessage !== undefined) sets.push(sql`status_message = ${jsonParam(patch.statusMessage)}::jsonb`);
  if (patch.startedAt !== undefined) sets.push(sql`started_at = ${patch.startedAt}::timestamptz`);
  if (patch.sessionId !== undefined) sets.push(sql`session_id = ${patch.sessionId}`);
  if (patch.sessionLink !== undefined) sets.push(sql`session_link = ${patch.sessionLink}`);
  if (patch.attempts !== undefined) sets.push(sql`attempts = ${patch.attempts}`);
  if (patch.requestUsage !== undefined) sets.push(sql`request_usage = ${jsonParam(patch.requestUsage)}::jsonb`);
  if (patch.lease !== undefined) {
    sets.push(sql`lease_worker_id = ${patch.lease?.workerId ?? null}`);
    sets.push(sql`lease_expires_at = ${patch.lease?.expiresAt ?? null}::timestamptz`);
  }
  return sets;
}
