import { EVENT_PAYLOAD_FILE, type Store } from '@agentrun/core';
import type {
  AcceptDeliveryResult,
  CreateRunInput,
  DeliveryContext,
  DeliveryRecord,
  DeliveryStore,
  PendingDelivery,
  RateAdmission,
  RateLimitStore,
} from '@agentrun/core/store';
import { type RawBuilder, sql } from 'kysely';
import { createBatcher } from './batcher.js';
import type { Db, Tx } from './db.js';
import { type PreparedQuery, preparer, qualified } from './prepared.js';
import {
  type AutomationRow,
  automationFromRow,
  type DeliveryRow,
  deliveryFromRow,
  RUN_COLUMNS,
  runToRow,
  secretFromRow,
  type WebhookRow,
  webhookFromRow,
} from './rows.js';
import type { Statements } from './statements.js';
import type { Tables } from './tables.js';

/**
 * The delivery log and the rate-limit windows (tables of 0003_ingress). Every operation is one
 * statement: the reads plainly, the writes through the functions of 0004_ingress_functions, so
 * a delivery costs one read and one write, each a single round trip.
 */
export function createIngress(db: Db, t: Tables, statements: Statements): Pick<Store, 'deliveries' | 'rateLimits'> {
  const rows = async <R>(query: RawBuilder<unknown>, executor: Db | Tx = db): Promise<R[]> => (await query.execute(executor)).rows as R[];

  /**
   * Run a statement calling the functions of 0004, which need READ COMMITTED: on a session whose
   * default is stricter they refuse, and the statement runs again in a transaction that sets it.
   */
  async function readCommitted<R>(query: RawBuilder<unknown> | PreparedQuery<R>, values: readonly unknown[] = []): Promise<R[]> {
    const run = (executor?: Tx) => (typeof query === 'function' ? query(values, executor) : rows<R>(query, executor));
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('agentrun: READ COMMITTED required')) throw error;
      return db
        .transaction()
        .setIsolationLevel('read committed')
        .execute((tx) => run(tx));
    }
  }

  const prepare = preparer(statements);
  const q = (name: string) => qualified(t.schema, name);

  // Everything the pipeline needs about a webhook before the body (its record, its secret, the
  // failed-auth window) in one read, the columns named so that the prepared statement's result
  // stays what it was whatever a later migration adds.
  const contextRead = prepare<ContextRow>(`
    SELECT ${WEBHOOK_COLUMNS.map((c) => `w.${c}`).join(', ')},
      s.ciphertext AS secret_ciphertext, s.created_at AS secret_created_at, s.updated_at AS secret_updated_at,
      f.n AS auth_count, f.oldest AS auth_oldest
    FROM ${q('webhooks')} w
    LEFT JOIN ${q('team_secrets')} s ON s.team_uid = w.team_uid AND s.name = w.secret_name
    CROSS JOIN LATERAL (SELECT count(*)::int AS n, min(at) AS oldest FROM ${q('rate_limit_events')}
      WHERE key = $2::text AND at > $3::timestamptz) f
    WHERE w.uid = $1::text`);

  // The same read for several webhooks at once (batched as the accepts are): one row per element
  // whose webhook exists, `ord` its 1-based index.
  const contextsRead = prepare<ContextRow & { ord: number }>(`
    SELECT i.ord::int AS ord, ${WEBHOOK_COLUMNS.map((c) => `w.${c}`).join(', ')},
      s.ciphertext AS secret_ciphertext, s.created_at AS secret_created_at, s.updated_at AS secret_updated_at,
      f.n AS auth_count, f.oldest AS auth_oldest
    FROM unnest($1::text[], $2::text[], $3::timestamptz[]) WITH ORDINALITY AS i (uid, key, since, ord)
    JOIN ${q('webhooks')} w ON w.uid = i.uid
    LEFT JOIN ${q('team_secrets')} s ON s.team_uid = w.team_uid AND s.name = w.secret_name
    CROSS JOIN LATERAL (SELECT count(*)::int AS n, min(at) AS oldest FROM ${q('rate_limit_events')}
      WHERE key = i.key AND at > i.since) f`);

  const acceptWrite = prepare<AcceptRow>(`
    SELECT outcome, duplicate_of, window_oldest FROM ${q('agentrun_accept_delivery')}($1::text, $2::text, $3::text, $4::text, $5::text,
      $6::integer, $7::timestamptz, $8::bytea, $9::jsonb, $10::jsonb, $11::text, $12::integer, $13::timestamptz, $14::timestamptz)`);

  const acceptsWrite = prepare<AcceptRow & { ord: number }>(`
    SELECT ord, outcome, duplicate_of, window_oldest FROM ${q('agentrun_accept_deliveries')}($1::text[], $2::text[], $3::text[],
      $4::text[], $5::text[], $6::integer[], $7::timestamptz[], $8::bytea, $9::integer[], $10::text[], $11::integer[], $12::timestamptz[],
      $13::timestamptz[])`);

  const claimWrite = prepare<DeliveryRow>(`
    UPDATE ${q('deliveries')} d SET evaluation_due_at = $1::timestamptz
    FROM (SELECT id FROM ${q('deliveries')} WHERE evaluation_due_at <= $2::timestamptz
      ORDER BY evaluation_due_at LIMIT $3::integer FOR UPDATE SKIP LOCKED) c
    WHERE d.id = c.id
    RETURNING d.id, d.team_uid, d.factory_uid, d.webhook_uid, d.identity, d.size, d.received_at, d.status, d.payload`);

  // One statement: mark the deliveries still awaiting evaluation as evaluated, then insert the
  // runs (and attachments) of exactly those. A concurrent completer of the same delivery waits
  // on its row and then finds it evaluated (READ COMMITTED re-checks the WHERE), so its runs
  // are not inserted: a delivery's runs are created once, by the store, whatever the timing.
  // The `event-payload.json` of each run names the delivery instead of holding its bytes
  // (0023): the payload is stored once, in the delivery's row, whatever the number of runs.
  const completeWrite = prepare<{ id: string }>(`
    WITH done AS (
      UPDATE ${q('deliveries')} SET evaluation_due_at = NULL
      WHERE id = ANY($1::text[]) AND evaluation_due_at IS NOT NULL
      RETURNING id
    ), created AS (
      INSERT INTO ${q('runs')} (${RUN_COLUMNS.join(', ')})
        SELECT ${RUN_COLUMNS.map((c) => `r.${c}`).join(', ')}
        FROM jsonb_populate_recordset(NULL::${q('runs')}, $2::jsonb) r
        JOIN done ON done.id = r.trigger->>'delivery_id'
        RETURNING id, trigger->>'delivery_id' AS delivery_id
    ), attached AS (
      INSERT INTO ${q('run_attachments')} (run_id, file_name, mime_type, data, delivery_id)
        SELECT f.run_id, f.file_name, f.mime_type, decode(f.data_hex, 'hex'), CASE WHEN f.data_hex IS NULL THEN created.delivery_id END
        FROM jsonb_to_recordset($3::jsonb) AS f (run_id text, file_name text, mime_type text, data_hex text)
        JOIN created ON created.id = f.run_id
    )
    SELECT id FROM done`);

  // One statement for a batch's webhooks and their automations, found as listForWebhook finds them
  // (containment on the GIN index automations_triggers). Each automation comes once, with the
  // webhooks naming it as ids: a factory's automations usually select all its webhooks, and a
  // batch spans many, so the rows (and their JSON, and the matchers' check that an automation's
  // triggers are the ones compiled) would otherwise repeat once per webhook.
  const selectionsRead = prepare<{ webhooks: { webhook: WebhookRow; automation_ids: string[] }[]; automations: AutomationRow[] }>(`
    WITH w AS (
      SELECT ${WEBHOOK_COLUMNS.join(', ')} FROM ${q('webhooks')} WHERE uid = ANY($1::text[])
    ), m AS (
      SELECT w.uid AS webhook_uid, a.id, a.created_at FROM w JOIN ${q('automations')} a
        ON a.enabled AND a.triggers @> jsonb_build_array(jsonb_build_object('provider', 'webhook',
          'filter', jsonb_build_object('webhook_ids', jsonb_build_array(w.uid))))
    )
    SELECT
      (SELECT coalesce(jsonb_agg(jsonb_build_object('webhook', to_jsonb(w), 'automation_ids',
        (SELECT coalesce(jsonb_agg(m.id ORDER BY m.created_at, m.id), '[]'::jsonb) FROM m WHERE m.webhook_uid = w.uid))), '[]'::jsonb)
        FROM w) AS webhooks,
      (SELECT coalesce(jsonb_agg(to_jsonb(a)), '[]'::jsonb) FROM ${q('automations')} a WHERE a.id IN (SELECT id FROM m)) AS automations`);

  /** Milliseconds until the oldest event of a full window leaves it. */
  const retryAfterMs = (oldest: Date | string | null, { windowMs, now }: Pick<RateAdmission, 'windowMs' | 'now'>) =>
    oldest === null ? 0 : Math.max(0, new Date(oldest).getTime() + windowMs - Date.parse(now));

  /** The INSERT of one log entry, as given (`status` and `payload` included). */
  const insertDelivery = (d: DeliveryRecord, suffix: RawBuilder<unknown> = sql``) =>
    sql`INSERT INTO ${t.deliveries} (id, team_uid, factory_uid, webhook_uid, identity, size, received_at, status, payload)
      VALUES (${d.id}, ${d.teamUid}, ${d.factoryUid}, ${d.webhookUid}, ${d.identity}, ${d.size}, ${d.receivedAt}::timestamptz,
        ${d.status}, ${d.payload === null ? null : Buffer.from(d.payload)}::bytea)${suffix}`;

  /** The context as one row read it (`undefined`: no webhook has the UID). */
  function contextOf(row: ContextRow | undefined, { windowMs, now }: ContextInput): DeliveryContext | undefined {
    if (!row) return undefined;
    const { secret_ciphertext: ciphertext, secret_created_at: createdAt, secret_updated_at: updatedAt } = row;
    return {
      webhook: webhookFromRow(row),
      secret:
        ciphertext === null
          ? undefined
          : secretFromRow({ team_uid: row.team_uid, name: row.secret_name, ciphertext, created_at: createdAt, updated_at: updatedAt }),
      authFailures: { count: row.auth_count, retryAfterMs: retryAfterMs(row.auth_oldest, { windowMs, now }) },
    };
  }

  /**
   * Context reads queue behind the ones in flight and go together, as the accepts do: each is
   * still read after its request arrived (the batch's statement starts after every read in it was
   * asked for), so a change committed before a delivery is seen by it, as when read alone.
   */
  const contextBatched = createBatcher<ContextInput, DeliveryContext | undefined>({
    one: async (input) => {
      const [row] = await contextRead([input.webhookUid, input.authBudgetKey, windowStart(input.now, input.windowMs)]);
      return contextOf(row, input);
    },
    many: async (inputs) => {
      const rows = await contextsRead([
        inputs.map((i) => i.webhookUid),
        inputs.map((i) => i.authBudgetKey),
        inputs.map((i) => windowStart(i.now, i.windowMs)),
      ]);
      const byOrd = new Map(rows.map((row) => [row.ord, row]));
      return inputs.map((input, i) => contextOf(byOrd.get(i + 1), input));
    },
    maxInFlight: IN_FLIGHT,
    maxBatch: BATCH,
  });

  /** One accept, alone: agentrun_accept_delivery (0023), the resend's runs with it if given. */
  async function acceptOne({ delivery: d, runs, admit }: AcceptInput): Promise<AcceptDeliveryResult> {
    const [result] = await readCommitted(acceptWrite, [
      d.id,
      d.teamUid,
      d.factoryUid,
      d.webhookUid,
      d.identity,
      d.size,
      d.receivedAt,
      d.payload === null ? null : bufferOf(d.payload),
      runs ? JSON.stringify(runs.map((r) => runToRow(r.run))) : null,
      runs ? JSON.stringify(attachmentRows(runs, d.payload)) : null,
      admit?.key ?? null,
      admit?.limit ?? null,
      admit ? windowStart(admit.now, admit.windowMs) : null,
      admit?.now ?? null,
    ]);
    return acceptResult(d, admit, result);
  }

  /**
   * Accepts awaiting evaluation, in one statement (agentrun_accept_deliveries, 0026; set-based
   * since 0031, so a batch costs a few statements inside the function, whatever its length), ordered by
   * rate key and webhook: a batch holds its keys' admission locks until its commit, so batches
   * taking them in one order cannot deadlock. The order within a key is kept (the sort is
   * stable); the accepts of a batch were all in flight at once, so any order is one they could
   * have had one after another.
   */
  async function acceptMany(inputs: readonly AcceptInput[]): Promise<AcceptDeliveryResult[]> {
    const order = inputs.map((_, i) => i);
    const sortKey = (i: number) => {
      const { delivery, admit } = inputs[i] as AcceptInput;
      return `${admit?.key ?? ''}\u0000${delivery.webhookUid}`;
    };
    order.sort((a, b) => {
      const ka = sortKey(a);
      const kb = sortKey(b);
      return ka < kb ? -1 : ka > kb ? 1 : a - b;
    });
    const sorted = order.map((i) => inputs[i] as AcceptInput);
    const column = <T>(f: (input: AcceptInput) => T) => sorted.map(f);
    const rows = await readCommitted(acceptsWrite, [
      column(({ delivery }) => delivery.id),
      column(({ delivery }) => delivery.teamUid),
      column(({ delivery }) => delivery.factoryUid),
      column(({ delivery }) => delivery.webhookUid),
      column(({ delivery }) => delivery.identity),
      column(({ delivery }) => delivery.size),
      column(({ delivery }) => delivery.receivedAt),
      Buffer.concat(sorted.flatMap(({ delivery }) => (delivery.payload === null ? [] : [delivery.payload]))),
      column(({ delivery }) => delivery.payload?.byteLength ?? null),
      column(({ admit }) => admit?.key ?? null),
      column(({ admit }) => admit?.limit ?? null),
      column(({ admit }) => (admit ? windowStart(admit.now, admit.windowMs) : null)),
      column(({ admit }) => admit?.now ?? null),
    ]);
    if (rows.length !== inputs.length) throw new Error(`agentrun: a batch of ${inputs.length} accepts answered ${rows.length}`);
    const results: AcceptDeliveryResult[] = new Array(inputs.length);
    for (const row of rows) {
      const at = order[row.ord - 1];
      if (at === undefined) throw new Error(`agentrun: an accept batch answered for element ${row.ord} of ${inputs.length}`);
      const { delivery, admit } = inputs[at] as AcceptInput;
      results[at] = acceptResult(delivery, admit, row);
    }
    return results;
  }

  const acceptBatched = createBatcher<AcceptInput, AcceptDeliveryResult>({
    one: acceptOne,
    many: acceptMany,
    maxInFlight: IN_FLIGHT,
    maxBatch: BATCH,
  });

  function acceptResult(d: DeliveryRecord, admit: RateAdmission | undefined, result: AcceptRow | undefined): AcceptDeliveryResult {
    if (result?.outcome === 'accepted') return { accepted: true };
    if (result?.outcome === 'duplicate' && result.duplicate_of !== null) return { accepted: false, duplicateOf: result.duplicate_of };
    if (result?.outcome === 'rate_limited' && admit) {
      return { accepted: false, rateLimited: true, retryAfterMs: retryAfterMs(result.window_oldest, admit) };
    }
    throw new Error(`delivery ${d.id}: unexpected outcome ${JSON.stringify(result)}`);
  }

  const deliveries: DeliveryStore = {
    context: (input) => contextBatched(input),

    accept: ({ delivery, runs, admit }) => (runs ? acceptOne({ delivery, runs, admit }) : acceptBatched({ delivery, admit })),

    async claimEvaluations({ limit, leaseMs, now }) {
      // The partial index deliveries_evaluation_due holds only deliveries awaiting evaluation;
      // SKIP LOCKED lets concurrent claimers take different ones without waiting on each other.
      const claimed = await claimWrite([new Date(Date.parse(now) + leaseMs).toISOString(), now, limit]);
      return claimed
        .map((row) => deliveryFromRow(row) as PendingDelivery)
        .filter((d) => d.payload !== null)
        .sort((a, b) => (a.receivedAt < b.receivedAt ? -1 : a.receivedAt > b.receivedAt ? 1 : a.id < b.id ? -1 : 1));
    },

    async completeEvaluations(evaluations) {
      if (evaluations.length === 0) return [];
      const ids = evaluations.map((e) => e.deliveryId);
      const runs = evaluations.flatMap((e) => e.runs);
      const done = await completeWrite([
        ids,
        JSON.stringify(runs.map((r) => runToRow(r.run))),
        JSON.stringify(attachmentRows(runs, null, true)),
      ]);
      return done.map((r) => r.id);
    },

    async selections(webhookUids) {
      if (webhookUids.length === 0) return [];
      const [found] = await selectionsRead([[...webhookUids]]);
      if (!found) return [];
      const automations = new Map(found.automations.map((row) => [row.id, automationFromRow(row)]));
      return found.webhooks.map(({ webhook, automation_ids }) => ({
        webhook: webhookFromRow(webhook),
        automations: automation_ids.flatMap((id) => automations.get(id) ?? []),
      }));
    },

    async log(entry, admit) {
      if (!admit) {
        await insertDelivery(entry).execute(db);
        return { logged: true };
      }
      // The admission, then the entry only if admitted: one statement. The CTE is read twice, so it
      // is evaluated once.
      const [result] = await readCommitted<{ admitted: boolean; window_oldest: Date | null }>(sql`
        WITH admission AS (
          SELECT * FROM ${t.fn('agentrun_rate_admit')}(${admit.key}, ${admit.limit}::integer, ${windowStart(admit.now, admit.windowMs)}::timestamptz,
            ${admit.now}::timestamptz)
        ), logged AS (
          INSERT INTO ${t.deliveries} (id, team_uid, factory_uid, webhook_uid, identity, size, received_at, status, payload)
          SELECT ${entry.id}, ${entry.teamUid}, ${entry.factoryUid}, ${entry.webhookUid}, ${entry.identity}, ${entry.size}::integer,
            ${entry.receivedAt}::timestamptz, ${entry.status}, ${entry.payload === null ? null : Buffer.from(entry.payload)}::bytea
          FROM admission WHERE admission.admitted
        )
        SELECT admitted, window_oldest FROM admission`);
      if (result?.admitted) return { logged: true };
      return { logged: false, rateLimited: true, retryAfterMs: retryAfterMs(result?.window_oldest ?? null, admit) };
    },

    async list(teamUid, webhookUid, page) {
      // The row comparison reads deliveries_webhook_received from the cursor on, newest first.
      const after = page.after ? sql` AND (received_at, id) < (${page.after.receivedAt}::timestamptz, ${page.after.id})` : sql``;
      const found = await rows<DeliveryRow>(sql`
        SELECT * FROM ${t.deliveries} WHERE webhook_uid = ${webhookUid} AND team_uid = ${teamUid}${after}
        ORDER BY received_at DESC, id DESC LIMIT ${page.limit}`);
      return found.map(deliveryFromRow);
    },

    async get(teamUid, webhookUid, id) {
      const [row] = await rows<DeliveryRow>(
        sql`SELECT * FROM ${t.deliveries} WHERE id = ${id} AND team_uid = ${teamUid} AND webhook_uid = ${webhookUid}`,
      );
      return row ? deliveryFromRow(row) : undefined;
    },

    async find(teamUid, id) {
      const [row] = await rows<DeliveryRow>(sql`SELECT * FROM ${t.deliveries} WHERE id = ${id} AND team_uid = ${teamUid}`);
      return row ? deliveryFromRow(row) : undefined;
    },

    async sweep(olderThan, keepNewest) {
      // One statement: each entry's rank within its webhook, newest first (the order of
      // deliveries_webhook_received, so no sort), then every old entry past the newest N goes.
      // It reads the whole log, which retention itself keeps to about a week of entries.
      // Runs outlive the log: an attachment naming a delivery that goes gets the payload's bytes
      // first (0023), in the same statement, so the run API serves it as before. Only evaluated
      // deliveries go: one evaluated in this statement's snapshot had its runs and attachments
      // committed with that (completeEvaluations), so the copy sees them all, and nothing changes
      // an evaluated delivery's row after. One awaiting evaluation waits for a later sweep.
      const [result] = await rows<{ n: number }>(sql`
        WITH ranked AS (
          SELECT id, received_at, row_number() OVER (PARTITION BY webhook_uid ORDER BY received_at DESC, id DESC) AS rank
          FROM ${t.deliveries}
        ), gone AS (
          DELETE FROM ${t.deliveries} d USING ranked r
          WHERE d.id = r.id AND r.rank > ${keepNewest} AND r.received_at < ${olderThan}::timestamptz AND d.evaluation_due_at IS NULL
          RETURNING d.id, d.payload
        ), kept AS (
          UPDATE ${t.run_attachments} a SET data = gone.payload, delivery_id = NULL FROM gone WHERE a.delivery_id = gone.id
        )
        SELECT count(*)::int AS n FROM gone`);
      return result?.n ?? 0;
    },
  };

  /** The start of the window `(now - windowMs, now]`: events at or before it are out. */
  const windowStart = (now: string, windowMs: number) => new Date(Date.parse(now) - windowMs).toISOString();

  /** Count and oldest event of a key's window; when the oldest leaves it (0 for an empty window). */
  async function countWindow(key: string, windowMs: number, now: string) {
    const [row] = await rows<{ n: number; oldest: Date | string | null }>(
      sql`SELECT count(*)::int AS n, min(at) AS oldest FROM ${t.rate_limit_events}
        WHERE key = ${key} AND at > ${windowStart(now, windowMs)}::timestamptz`,
    );
    return { count: row?.n ?? 0, retryAfterMs: retryAfterMs(row?.oldest ?? null, { windowMs, now }) };
  }

  const rateLimits: RateLimitStore = {
    peek: ({ key, windowMs, now }) => countWindow(key, windowMs, now),

    async admit(admission) {
      const { key, limit, windowMs, now } = admission;
      const [result] = await readCommitted<{ admitted: boolean; window_oldest: Date | null }>(sql`
        SELECT * FROM ${t.fn('agentrun_rate_admit')}(${key}, ${limit}::integer, ${windowStart(now, windowMs)}::timestamptz, ${now}::timestamptz)`);
      return result?.admitted
        ? { allowed: true }
        : { allowed: false, retryAfterMs: retryAfterMs(result?.window_oldest ?? null, admission) };
    },
  };

  return { deliveries, rateLimits };
}

/** The webhook's columns, named rather than `*` (prepared.ts). */
const WEBHOOK_COLUMNS = [
  'uid',
  'team_uid',
  'factory_uid',
  'name',
  'auth_mode',
  'signature_scheme',
  'secret_name',
  'delivery_id_header',
  'enabled',
  'created_at',
  'updated_at',
  'deleted_at',
] as const;

type AcceptInput = Parameters<DeliveryStore['accept']>[0];
type AcceptRow = { outcome: string; duplicate_of: string | null; window_oldest: Date | null };

type ContextInput = Parameters<DeliveryStore['context']>[0];

/**
 * Statements of one kind (accepts, context reads) out at once from one store before calls queue
 * into batches, and the most in one batch (batcher.ts). A few in flight keep the idle path one
 * round trip and let a busy ingress send many deliveries per statement. 2, 4, 8 and 16 were
 * measured for the accepts (docs/production.md, "Group commit"): 16 (the bench's pool) never
 * batches; 2 to 8 were within the noise of a busy machine. Since a batch costs the database a
 * fixed few statements whatever its length (0031), fewer in flight pay: 2 sends 0.68 statements
 * per delivery where 4 sent 1.12, for a third less CPU per delivery in the server and in its
 * backends; 1 sends 0.40 but doubles the p99 (docs/production.md, "Accepts as sets").
 */
const IN_FLIGHT = 2;
const BATCH = 64;

type ContextRow = WebhookRow & {
  secret_ciphertext: string | null;
  secret_created_at: Date;
  secret_updated_at: Date;
  auth_count: number;
  auth_oldest: Date | null;
};

/** The payload as a Buffer over the same bytes (no copy): `pg` sends a Buffer parameter as binary bytea. */
const bufferOf = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/**
 * The attachments of a delivery's runs as rows for agentrun_accept_delivery: bytes that are the
 * delivery's own payload (the `event-payload.json` of every run) travel once, as the payload;
 * any others as hex.
 */
function attachmentRows(runs: readonly CreateRunInput[], payload: Uint8Array | null, eventPayloadIsDelivery = false) {
  return runs.flatMap(({ attachments }) =>
    attachments.map((a) => ({
      run_id: a.runId,
      file_name: a.fileName,
      mime_type: a.mimeType,
      data_hex:
        a.data === payload || (eventPayloadIsDelivery && a.fileName === EVENT_PAYLOAD_FILE)
          ? null
          : Buffer.from(a.data.buffer, a.data.byteOffset, a.data.byteLength).toString('hex'),
    })),
  );
}
