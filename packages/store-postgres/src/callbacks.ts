import type {
  AuditEventRecord,
  CallbackAttemptRecord,
  CallbackDeliveryRecord,
  CallbackDeliveryWithAttempts,
  CallbackEndpointRecord,
  CallbackStore,
  ClaimedCallback,
} from '@agentrun/core/store';
import { type RawBuilder, sql } from 'kysely';
import { withAudit } from './audit.js';
import type { Db, Tx } from './db.js';
import { iso } from './rows.js';
import type { Tables } from './tables.js';

interface EndpointRow {
  id: string;
  team_uid: string;
  factory_uid: string | null;
  url: string;
  description: string;
  event_types: string[];
  secret_ciphertext: string;
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

interface DeliveryRow {
  seq: string;
  id: string;
  endpoint_id: string;
  team_uid: string;
  event_type: string;
  run_id: string;
  factory_uid: string | null;
  from_state: string | null;
  to_state: string;
  status_message: CallbackDeliveryRecord['statusMessage'];
  occurred_at: Date;
  artifact: CallbackDeliveryRecord['artifact'];
  status: string;
  attempts: number;
  round_attempts: number;
  window_started_at: Date;
  next_attempt_at: Date | null;
  updated_at: Date;
}

interface AttemptRow {
  delivery_id: string;
  attempt: number;
  at: Date;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  ok: boolean;
}

const endpointFromRow = (r: EndpointRow): CallbackEndpointRecord => ({
  id: r.id,
  teamUid: r.team_uid,
  factoryUid: r.factory_uid,
  url: r.url,
  description: r.description,
  eventTypes: r.event_types as CallbackEndpointRecord['eventTypes'],
  secretCiphertext: r.secret_ciphertext,
  enabled: r.enabled,
  disabledReason: r.disabled_reason as CallbackEndpointRecord['disabledReason'],
  failingSince: r.failing_since ? iso(r.failing_since) : null,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

const deliveryFromRow = (r: DeliveryRow): CallbackDeliveryRecord => ({
  id: r.id,
  seq: Number(r.seq),
  endpointId: r.endpoint_id,
  teamUid: r.team_uid,
  eventType: r.event_type as CallbackDeliveryRecord['eventType'],
  runId: r.run_id,
  factoryUid: r.factory_uid,
  fromState: r.from_state as CallbackDeliveryRecord['fromState'],
  toState: r.to_state as CallbackDeliveryRecord['toState'],
  statusMessage: r.status_message,
  occurredAt: iso(r.occurred_at),
  artifact: r.artifact,
  status: r.status as CallbackDeliveryRecord['status'],
  attempts: r.attempts,
  roundAttempts: r.round_attempts,
  windowStartedAt: iso(r.window_started_at),
  nextAttemptAt: r.next_attempt_at ? iso(r.next_attempt_at) : null,
  updatedAt: iso(r.updated_at),
});

const attemptFromRow = (r: AttemptRow): CallbackAttemptRecord => ({
  deliveryId: r.delivery_id,
  attempt: r.attempt,
  at: iso(r.at),
  statusCode: r.status_code,
  durationMs: r.duration_ms,
  error: r.error,
  ok: r.ok,
});

const DELIVERY_COLUMNS = sql`d.seq, d.id, d.endpoint_id, d.team_uid, d.event_type, d.run_id, d.factory_uid, d.from_state, d.to_state,
  d.status_message, d.occurred_at, d.artifact, d.status, d.attempts, d.round_attempts, d.window_started_at, d.next_attempt_at, d.updated_at`;

/** The callback tables (docs/callbacks.md); the outbox itself is filled by triggers (migrations/baseline/callbacks.ts). */
export function createCallbacks(db: Db, t: Tables): CallbackStore {
  const rows = async <R>(query: RawBuilder<unknown>, executor: Db | Tx = db): Promise<R[]> => (await query.execute(executor)).rows as R[];
  const audited = <T>(audit: AuditEventRecord | undefined, write: (q: Db | Tx) => Promise<T>, changed: (result: T) => boolean) =>
    withAudit(db, t, audit, write, changed);

  const withAttempts = async (deliveries: CallbackDeliveryRecord[]): Promise<CallbackDeliveryWithAttempts[]> => {
    if (deliveries.length === 0) return [];
    const attempts = await rows<AttemptRow>(sql`
      SELECT * FROM ${t.callback_attempts} WHERE delivery_id IN (${sql.join(deliveries.map((d) => d.id))}) ORDER BY delivery_id, attempt`);
    return deliveries.map((d) => ({ ...d, attemptLog: attempts.filter((a) => a.delivery_id === d.id).map(attemptFromRow) }));
  };

  return {
    async createEndpoint(e, maxPerTeam, audit) {
      const write = async (q: Db | Tx) => {
        // The team's row lock orders concurrent creates, so the count cannot be passed by a race.
        await sql`SELECT pg_advisory_xact_lock(hashtext(${`agentrun callbacks ${e.teamUid}`}))`.execute(q);
        const inserted = await sql`
          INSERT INTO ${t.callback_endpoints} (id, team_uid, factory_uid, url, description, event_types, secret_ciphertext, enabled,
            disabled_reason, failing_since, created_at, updated_at)
          SELECT ${e.id}, ${e.teamUid}, ${e.factoryUid}, ${e.url}, ${e.description}, ${e.eventTypes}::text[], ${e.secretCiphertext},
            ${e.enabled}, ${e.disabledReason}, ${e.failingSince}::timestamptz, ${e.createdAt}::timestamptz, ${e.updatedAt}::timestamptz
          WHERE (SELECT count(*) FROM ${t.callback_endpoints} WHERE team_uid = ${e.teamUid}) < ${maxPerTeam}`.execute(q);
        return Number(inserted.numAffectedRows ?? 0) > 0;
      };
      // The advisory lock needs a transaction: with no audit event, one of its own.
      const created = audit ? await audited(audit, write, (ok) => ok) : await db.transaction().execute(write);
      return created ? { created: true } : { created: false, reason: 'limit' };
    },

    async getEndpoint(teamUid, id) {
      const [row] = await rows<EndpointRow>(sql`SELECT * FROM ${t.callback_endpoints} WHERE team_uid = ${teamUid} AND id = ${id}`);
      return row ? endpointFromRow(row) : undefined;
    },

    async listEndpoints(teamUid) {
      return (await rows<EndpointRow>(sql`SELECT * FROM ${t.callback_endpoints} WHERE team_uid = ${teamUid} ORDER BY created_at, id`)).map(
        endpointFromRow,
      );
    },

    async updateEndpoint(teamUid, id, patch, now, audit) {
      const sets = [sql`updated_at = ${now}::timestamptz`];
      if (patch.url !== undefined) sets.push(sql`url = ${patch.url}`);
      if (patch.description !== undefined) sets.push(sql`description = ${patch.description}`);
      if (patch.eventTypes !== undefined) sets.push(sql`event_types = ${patch.eventTypes}::text[]`);
      if (patch.enabled !== undefined) sets.push(sql`enabled = ${patch.enabled}`);
      if (patch.disabledReason !== undefined) sets.push(sql`disabled_reason = ${patch.disabledReason}`);
      if (patch.secretCiphertext !== undefined) sets.push(sql`secret_ciphertext = ${patch.secretCiphertext}`);
      if (patch.failingSince !== undefined) sets.push(sql`failing_since = ${patch.failingSince}::timestamptz`);
      const write = async (q: Db | Tx) => {
        const [row] = await rows<EndpointRow>(
          sql`UPDATE ${t.callback_endpoints} SET ${sql.join(sets)} WHERE team_uid = ${teamUid} AND id = ${id} RETURNING *`,
          q,
        );
        return row ? endpointFromRow(row) : undefined;
      };
      return audited(audit, write, (row) => row !== undefined);
    },

    async deleteEndpoint(teamUid, id, audit) {
      const write = async (q: Db | Tx) =>
        Number(
          (await sql`DELETE FROM ${t.callback_endpoints} WHERE team_uid = ${teamUid} AND id = ${id}`.execute(q)).numAffectedRows ?? 0,
        ) > 0;
      return audited(audit, write, (deleted) => deleted);
    },

    async claimDue({ now, limit, claimUntil }) {
      // SKIP LOCKED: concurrent dispatchers each lease different deliveries instead of waiting.
      const claimed = await rows<DeliveryRow & { url: string; secret_ciphertext: string }>(sql`
        WITH due AS (
          SELECT d.id FROM ${t.callback_deliveries} d JOIN ${t.callback_endpoints} e ON e.id = d.endpoint_id
          WHERE d.status = 'pending' AND d.next_attempt_at <= ${now}::timestamptz
            AND (d.claimed_until IS NULL OR d.claimed_until <= ${now}::timestamptz) AND e.enabled
          ORDER BY d.next_attempt_at, d.seq LIMIT ${limit}
          FOR UPDATE OF d SKIP LOCKED
        ),
        leased AS (
          UPDATE ${t.callback_deliveries} d SET claimed_until = ${claimUntil}::timestamptz FROM due WHERE d.id = due.id RETURNING d.*
        )
        SELECT ${DELIVERY_COLUMNS}, e.url, e.secret_ciphertext FROM leased d JOIN ${t.callback_endpoints} e ON e.id = d.endpoint_id
        ORDER BY d.next_attempt_at, d.seq`);
      return claimed.map((r): ClaimedCallback => ({ delivery: deliveryFromRow(r), url: r.url, secretCiphertext: r.secret_ciphertext }));
    },

    async recordAttempt({ attempt: a, claimedUntil, status, nextAttemptAt, now, endpoint }) {
      return db.transaction().execute(async (tx) => {
        const [updated] = await rows<{ endpoint_id: string }>(
          sql`
          UPDATE ${t.callback_deliveries} SET attempts = attempts + 1, round_attempts = round_attempts + 1, status = ${status},
            next_attempt_at = ${nextAttemptAt}::timestamptz, claimed_until = NULL, updated_at = ${now}::timestamptz
          WHERE id = ${a.deliveryId} AND status = 'pending' AND claimed_until = ${claimedUntil}::timestamptz RETURNING endpoint_id`,
          tx,
        );
        if (!updated) return false;
        await sql`
          INSERT INTO ${t.callback_attempts} (delivery_id, attempt, at, status_code, duration_ms, error, ok, endpoint_id)
          VALUES (${a.deliveryId}, ${a.attempt}, ${a.at}::timestamptz, ${a.statusCode}, ${a.durationMs}, ${a.error}, ${a.ok},
            ${updated.endpoint_id})
          ON CONFLICT DO NOTHING`.execute(tx);
        await sql`
          UPDATE ${t.callback_endpoints} SET
            failing_since = ${a.ok ? sql`NULL` : sql`COALESCE(failing_since, ${endpoint.failingSince}::timestamptz)`},
            enabled = enabled AND NOT ${endpoint.disable},
            disabled_reason = CASE WHEN enabled AND ${endpoint.disable} THEN 'failing' ELSE disabled_reason END,
            updated_at = CASE WHEN enabled AND ${endpoint.disable} THEN ${now}::timestamptz ELSE updated_at END
          WHERE id = ${updated.endpoint_id}`.execute(tx);
        return true;
      });
    },

    async listDeliveries(teamUid, endpointId, { before, limit }) {
      const found = await rows<DeliveryRow>(sql`
        SELECT ${DELIVERY_COLUMNS} FROM ${t.callback_deliveries} d
        WHERE d.team_uid = ${teamUid} AND d.endpoint_id = ${endpointId}${before === undefined ? sql`` : sql` AND d.seq < ${before}`}
        ORDER BY d.seq DESC LIMIT ${limit}`);
      return withAttempts(found.map(deliveryFromRow));
    },

    async getDelivery(teamUid, endpointId, deliveryId) {
      const [row] = await rows<DeliveryRow>(sql`
        SELECT ${DELIVERY_COLUMNS} FROM ${t.callback_deliveries} d
        WHERE d.team_uid = ${teamUid} AND d.endpoint_id = ${endpointId} AND d.id = ${deliveryId}`);
      return row ? (await withAttempts([deliveryFromRow(row)]))[0] : undefined;
    },

    async resend(teamUid, endpointId, deliveryId, now, audit) {
      const write = async (q: Db | Tx) => {
        const [row] = await rows<{ status: string; resent: boolean }>(
          sql`
          WITH current AS (
            SELECT id, status FROM ${t.callback_deliveries}
            WHERE team_uid = ${teamUid} AND endpoint_id = ${endpointId} AND id = ${deliveryId} FOR UPDATE
          ),
          resent AS (
            UPDATE ${t.callback_deliveries} d SET status = 'pending', round_attempts = 0, window_started_at = ${now}::timestamptz,
              next_attempt_at = ${now}::timestamptz, claimed_until = NULL, updated_at = ${now}::timestamptz
            FROM current WHERE d.id = current.id AND current.status <> 'pending' RETURNING d.id
          )
          SELECT current.status, EXISTS (SELECT 1 FROM resent) AS resent FROM current`,
          q,
        );
        if (!row) return 'absent' as const;
        return row.resent ? ('resent' as const) : ('pending' as const);
      };
      return audited(audit, write, (outcome) => outcome === 'resent');
    },

    async scanEndpoints(afterId, limit) {
      // COLLATE "C": code-point order, as the memory store compares (docs/stores.md).
      const after = afterId === undefined ? sql`` : sql`WHERE id COLLATE "C" > ${afterId}`;
      return (await rows<EndpointRow>(sql`SELECT * FROM ${t.callback_endpoints} ${after} ORDER BY id COLLATE "C" LIMIT ${limit}`)).map(
        endpointFromRow,
      );
    },

    async resealEndpoint(id, expected, ciphertext) {
      const result = await sql`
        UPDATE ${t.callback_endpoints} SET secret_ciphertext = ${ciphertext} WHERE id = ${id} AND secret_ciphertext = ${expected}`.execute(
        db,
      );
      return Number(result.numAffectedRows ?? 0) > 0;
    },

    async sweep(before) {
      const result =
        await sql`DELETE FROM ${t.callback_deliveries} WHERE status <> 'pending' AND updated_at < ${before}::timestamptz`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}
