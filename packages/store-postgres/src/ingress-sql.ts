import type { DeliveryRecord } from '@agentrun/core/store';
import { type RawBuilder, sql } from 'kysely';
import { qualified } from './prepared.js';
import { type AutomationRow, type DeliveryRow, RUN_COLUMNS, type WebhookRow } from './rows.js';
import type { Tables } from './tables.js';

// The webhook ingress's SQL (its methods: ingress.ts). The hot path's statements are text written
// once per store and sent as named prepared statements (prepared.ts); the rest (the rejected
// entries' log, the log's pages, the sweep, the rate windows read alone) are built per call. The
// writes of the hot path call the functions of migrations/baseline/ingress.ts, which need READ
// COMMITTED (ingress.ts runs them again in a transaction that sets it when the session's level is
// stricter). statements.sql shows the hot ones as sent, with those functions.

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

/** A webhook with its secret and the failed-auth window of its budget key (`context`). */
export type ContextRow = WebhookRow & {
  secret_ciphertext: string | null;
  secret_created_at: Date;
  secret_updated_at: Date;
  auth_count: number;
  auth_oldest: Date | null;
};

/** The answer of an accept function, for one delivery. */
export type AcceptRow = { outcome: string; duplicate_of: string | null; window_oldest: Date | null };

/** What `selections` answers: the webhooks, and the enabled automations of their factories, each once. */
export type SelectionsRow = { webhooks: WebhookRow[]; automations: AutomationRow[] };

/** The answer of an admission (`agentrun_rate_admit`). */
type AdmissionRow = { admitted: boolean; window_oldest: Date | null };

/**
 * The hot path's statements for one schema (ingress.ts sends them, typed with the rows above).
 * Their text names its columns (never `*`), so a column a later migration adds cannot change a
 * prepared statement's result.
 */
export function ingressStatements(schema: string) {
  const q = (name: string) => qualified(schema, name);
  return {
    /**
     * Everything the pipeline needs about a webhook before the body (its record, its secret, the
     * failed-auth window) in one read. $1 the webhook's UID, $2 the auth budget's key, $3 the
     * window's start.
     */
    context: `
    SELECT ${WEBHOOK_COLUMNS.map((c) => `w.${c}`).join(', ')},
      s.ciphertext AS secret_ciphertext, s.created_at AS secret_created_at, s.updated_at AS secret_updated_at,
      f.n AS auth_count, f.oldest AS auth_oldest
    FROM ${q('webhooks')} w
    LEFT JOIN ${q('team_secrets')} s ON s.team_uid = w.team_uid AND s.name = w.secret_name
    CROSS JOIN LATERAL (SELECT count(*)::int AS n, min(at) AS oldest FROM ${q('rate_limit_events')}
      WHERE key = $2::text AND at > $3::timestamptz) f
    WHERE w.uid = $1::text`,

    /**
     * The same read for several webhooks at once (batched as the accepts are): one row per element
     * whose webhook exists, `ord` its 1-based index. The arguments of `context` as arrays.
     */
    contexts: `
    SELECT i.ord::int AS ord, ${WEBHOOK_COLUMNS.map((c) => `w.${c}`).join(', ')},
      s.ciphertext AS secret_ciphertext, s.created_at AS secret_created_at, s.updated_at AS secret_updated_at,
      f.n AS auth_count, f.oldest AS auth_oldest
    FROM unnest($1::text[], $2::text[], $3::timestamptz[]) WITH ORDINALITY AS i (uid, key, since, ord)
    JOIN ${q('webhooks')} w ON w.uid = i.uid
    LEFT JOIN ${q('team_secrets')} s ON s.team_uid = w.team_uid AND s.name = w.secret_name
    CROSS JOIN LATERAL (SELECT count(*)::int AS n, min(at) AS oldest FROM ${q('rate_limit_events')}
      WHERE key = i.key AND at > i.since) f`,

    /**
     * One accept, alone (`agentrun_accept_delivery`): the delivery's fields, its runs and their
     * attachments when given (a resend), the rate admission's key, limit, window start and time,
     * and the request it keeps (headers masked; NULL for a resend).
     */
    accept: `
    SELECT outcome, duplicate_of, window_oldest FROM ${q('agentrun_accept_delivery')}($1::text, $2::text, $3::text, $4::text, $5::text,
      $6::integer, $7::timestamptz, $8::bytea, $9::jsonb, $10::jsonb, $11::text, $12::integer, $13::timestamptz, $14::timestamptz,
      $15::jsonb)`,

    /**
     * A batch of accepts awaiting evaluation (`agentrun_accept_deliveries`): the fields of
     * `accept` as arrays, one element per delivery, the payloads concatenated in one bytea, the
     * requests one JSON array.
     */
    accepts: `
    SELECT ord, outcome, duplicate_of, window_oldest FROM ${q('agentrun_accept_deliveries')}($1::text[], $2::text[], $3::text[],
      $4::text[], $5::text[], $6::integer[], $7::timestamptz[], $8::bytea, $9::integer[], $10::text[], $11::integer[], $12::timestamptz[],
      $13::timestamptz[], $14::jsonb)`,

    /**
     * Lease up to $3 deliveries awaiting evaluation whose lease is free at $2, until $1. The partial
     * index deliveries_evaluation_due holds only those; SKIP LOCKED lets concurrent claimers take
     * different ones without waiting on each other.
     */
    claimEvaluations: `
    UPDATE ${q('deliveries')} d SET evaluation_due_at = $1::timestamptz
    FROM (SELECT id FROM ${q('deliveries')} WHERE evaluation_due_at <= $2::timestamptz
      ORDER BY evaluation_due_at LIMIT $3::integer FOR UPDATE SKIP LOCKED) c
    WHERE d.id = c.id
    RETURNING d.id, d.team_uid, d.factory_uid, d.webhook_uid, d.identity, d.size, d.received_at, d.status, d.payload`,

    /**
     * Mark the deliveries $1 still awaiting evaluation as evaluated, keeping each one's run ids ($4:
     * delivery id → run ids, as JSON; empty: it started none, which the stats count as filtered out),
     * then insert the runs ($2, rows as JSON) and attachments ($3) of exactly those, in one
     * statement. A concurrent completer of the same delivery waits on its row and then finds it
     * evaluated (READ COMMITTED re-checks the WHERE), so its runs are not inserted: a delivery's runs
     * are created once, by the store, whatever the timing. The `event-payload.json` of each run
     * names the delivery instead of holding its bytes: the payload is stored once, in the delivery's
     * row, whatever the number of runs.
     */
    completeEvaluations: `
    WITH done AS (
      UPDATE ${q('deliveries')} SET evaluation_due_at = NULL,
        run_ids = ARRAY(SELECT jsonb_array_elements_text(coalesce($4::jsonb -> id, '[]'::jsonb)))
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
    SELECT id FROM done`,

    /**
     * A batch's webhooks ($1), and the enabled automations of their factories, oldest first, each
     * once: an automation selects only webhooks of its own factory (checked when it is saved), so
     * these hold every automation that selects one of the webhooks, and ingress.ts tells which
     * selects which from their triggers. Read by the factories' index (automations_factory_created)
     * rather than one containment test per webhook and automation, which with a batch of 100
     * webhooks cost more than the rest of its evaluation.
     */
    selections: `
    WITH w AS (
      SELECT ${WEBHOOK_COLUMNS.join(', ')} FROM ${q('webhooks')} WHERE uid = ANY($1::text[])
    )
    SELECT
      (SELECT coalesce(jsonb_agg(to_jsonb(w)), '[]'::jsonb) FROM w) AS webhooks,
      (SELECT coalesce(jsonb_agg(to_jsonb(a) ORDER BY a.created_at, a.id), '[]'::jsonb) FROM ${q('automations')} a
        WHERE a.enabled AND (a.team_uid, a.factory_uid) IN (SELECT team_uid, factory_uid FROM w)) AS automations`,
  };
}

/** The rate admission's fields as the SQL takes them: the window's start computed. */
export interface AdmissionArgs {
  key: string;
  limit: number;
  windowStart: string;
  now: string;
}

/** The ingress's other statements, built per call over the store's tables. */
export function ingressQueries(t: Tables) {
  return {
    /** A rejected entry, as given (`status` and `payload` included). */
    insertDelivery: (d: DeliveryRecord) =>
      sql`INSERT INTO ${t.deliveries} (id, team_uid, factory_uid, webhook_uid, identity, size, received_at, status, payload)
      VALUES (${d.id}, ${d.teamUid}, ${d.factoryUid}, ${d.webhookUid}, ${d.identity}, ${d.size}, ${d.receivedAt}::timestamptz,
        ${d.status}, ${d.payload === null ? null : Buffer.from(d.payload)}::bytea)`,

    /**
     * The admission, then the entry only if admitted: one statement. The CTE is read twice, so it is
     * evaluated once.
     */
    insertDeliveryAdmitted: (entry: DeliveryRecord, admit: AdmissionArgs): RawBuilder<AdmissionRow> => sql`
        WITH admission AS (
          SELECT * FROM ${t.fn('agentrun_rate_admit')}(${admit.key}, ${admit.limit}::integer, ${admit.windowStart}::timestamptz,
            ${admit.now}::timestamptz)
        ), logged AS (
          INSERT INTO ${t.deliveries} (id, team_uid, factory_uid, webhook_uid, identity, size, received_at, status, payload)
          SELECT ${entry.id}, ${entry.teamUid}, ${entry.factoryUid}, ${entry.webhookUid}, ${entry.identity}, ${entry.size}::integer,
            ${entry.receivedAt}::timestamptz, ${entry.status}, ${entry.payload === null ? null : Buffer.from(entry.payload)}::bytea
          FROM admission WHERE admission.admitted
        )
        SELECT admitted, window_oldest FROM admission`,

    /** A webhook's log, newest first: the row comparison reads deliveries_webhook_received from the cursor on. */
    list: (
      teamUid: string,
      webhookUid: string,
      page: { limit: number; after?: { receivedAt: string; id: string } },
    ): RawBuilder<DeliveryRow> => {
      const after = page.after ? sql` AND (received_at, id) < (${page.after.receivedAt}::timestamptz, ${page.after.id})` : sql``;
      return sql`
        SELECT * FROM ${t.deliveries} WHERE webhook_uid = ${webhookUid} AND team_uid = ${teamUid}${after}
        ORDER BY received_at DESC, id DESC LIMIT ${page.limit}`;
    },

    get: (teamUid: string, webhookUid: string, id: string): RawBuilder<DeliveryRow> =>
      sql`SELECT * FROM ${t.deliveries} WHERE id = ${id} AND team_uid = ${teamUid} AND webhook_uid = ${webhookUid}`,

    find: (teamUid: string, id: string): RawBuilder<DeliveryRow> =>
      sql`SELECT * FROM ${t.deliveries} WHERE id = ${id} AND team_uid = ${teamUid}`,

    /**
     * The retention sweep, one statement: each entry's rank within its webhook, newest first (the
     * order of deliveries_webhook_received, so no sort), then every old entry past the newest N
     * goes. It reads the whole log, which retention itself keeps to about a week of entries. Runs
     * outlive the log: an attachment naming a delivery that goes gets the payload's bytes first, in
     * the same statement, so the run API serves it as before. Only evaluated deliveries go: one
     * evaluated in this statement's snapshot had its runs and attachments committed with that
     * (completeEvaluations), so the copy sees them all, and nothing changes an evaluated delivery's
     * row after. One awaiting evaluation waits for a later sweep.
     */
    sweep: (olderThan: string, keepNewest: number): RawBuilder<{ n: number }> => sql`
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
        SELECT count(*)::int AS n FROM gone`,

    /** Count and oldest event of a key's window, read alone. */
    windowCount: (key: string, windowStart: string): RawBuilder<{ n: number; oldest: Date | string | null }> =>
      sql`SELECT count(*)::int AS n, min(at) AS oldest FROM ${t.rate_limit_events}
        WHERE key = ${key} AND at > ${windowStart}::timestamptz`,

    /** One admission, alone. */
    admit: (admit: AdmissionArgs): RawBuilder<AdmissionRow> => sql`
        SELECT * FROM ${t.fn('agentrun_rate_admit')}(${admit.key}, ${admit.limit}::integer, ${admit.windowStart}::timestamptz, ${admit.now}::timestamptz)`,
  };
}
