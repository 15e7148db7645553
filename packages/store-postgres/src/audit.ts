import type { AuditEventRecord, AuditRange, AuditStore } from '@agentrun/core/store';
import { type RawBuilder, sql } from 'kysely';
import type { Db, Tx } from './db.js';
import { type DeliveryRow, deliveryFromRow, iso, json } from './rows.js';
import type { Tables } from './tables.js';

interface AuditRow {
  id: string;
  team_uid: string;
  at: Date;
  kind: AuditEventRecord['kind'];
  actor_type: string;
  actor_id: string;
  target_type: string;
  target_id: string;
  factory_uid: string | null;
  detail: AuditEventRecord['detail'];
}

const auditFromRow = (r: AuditRow): AuditEventRecord => ({
  id: r.id,
  teamUid: r.team_uid,
  at: iso(r.at),
  kind: r.kind,
  actorType: r.actor_type,
  actorId: r.actor_id,
  targetType: r.target_type,
  targetId: r.target_id,
  factoryUid: r.factory_uid,
  detail: r.detail,
});

/** Insert one event; control-plane writes call it inside their own transaction (control-plane.ts, definitions.ts). */
export async function insertAuditEvent(q: Db | Tx, t: Tables, e: AuditEventRecord): Promise<void> {
  await sql`INSERT INTO ${t.audit_events} (id, team_uid, at, kind, actor_type, actor_id, target_type, target_id, factory_uid, detail)
    VALUES (${e.id}, ${e.teamUid}, ${e.at}::timestamptz, ${e.kind}, ${e.actorType}, ${e.actorId}, ${e.targetType}, ${e.targetId},
      ${e.factoryUid}, ${json(e.detail)}::jsonb)`.execute(q);
}

/**
 * Run a write and, if it changed something, insert its audit event in the same transaction (no
 * change without its event, no event without its change). Without an event: the write alone.
 */
export async function withAudit<T>(
  db: Db,
  t: Tables,
  audit: AuditEventRecord | undefined,
  write: (q: Db | Tx) => Promise<T>,
  changed: (result: T) => boolean,
): Promise<T> {
  if (!audit) return write(db);
  return db.transaction().execute(async (tx) => {
    const result = await write(tx);
    if (changed(result)) await insertAuditEvent(tx, t, audit);
    return result;
  });
}

/** Conditions that each start with ` AND `, one after the other (nothing for none). */
const joined = (parts: RawBuilder<unknown>[]): RawBuilder<unknown> => (parts.length === 0 ? sql`` : sql.join(parts, sql``));

/** The range conditions on a time column and `id`, newest first (`AND …`, or nothing). */
function rangeConditions(column: RawBuilder<unknown>, q: AuditRange): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  if (q.since !== undefined) parts.push(sql`${column} >= ${q.since}::timestamptz`);
  if (q.until !== undefined) parts.push(sql`${column} < ${q.until}::timestamptz`);
  if (q.after !== undefined) parts.push(sql`(${column}, id) < (${q.after.at}::timestamptz, ${q.after.id})`);
  return joined(parts.map((p) => sql` AND ${p}`));
}

/** The audit log (table `audit_events`) and the team-wide read of the delivery log it serves as ingress outcomes. */
export function createAudit(db: Db, t: Tables): AuditStore {
  return {
    record: (event) => insertAuditEvent(db, t, event),

    async list(teamUid, q) {
      const filters: RawBuilder<unknown>[] = [];
      if (q.kinds !== undefined) filters.push(sql` AND kind = ANY(${[...q.kinds]}::text[])`);
      if (q.actorId !== undefined) filters.push(sql` AND actor_id = ${q.actorId}`);
      if (q.targetId !== undefined) filters.push(sql` AND target_id = ${q.targetId}`);
      const { rows } = await sql<AuditRow>`
        SELECT * FROM ${t.audit_events} WHERE team_uid = ${teamUid}${joined(filters)}${rangeConditions(sql.ref('at'), q)}
        ORDER BY at DESC, id DESC LIMIT ${q.limit}`.execute(db);
      return rows.map(auditFromRow);
    },

    async deliveries(teamUid, q) {
      // No index serves a team-wide read of the log: adding one would cost every accept, a single
      // write, one more index entry. Retention keeps the log to about a week.
      const filters: RawBuilder<unknown>[] = [];
      if (q.statuses !== undefined) filters.push(sql` AND status = ANY(${[...q.statuses]}::text[])`);
      if (q.webhookUid !== undefined) filters.push(sql` AND webhook_uid = ${q.webhookUid}`);
      const { rows } = await sql<DeliveryRow>`
        SELECT id, team_uid, factory_uid, webhook_uid, identity, size, received_at, status, NULL::bytea AS payload
        FROM ${t.deliveries} WHERE team_uid = ${teamUid}${joined(filters)}${rangeConditions(sql.ref('received_at'), q)}
        ORDER BY received_at DESC, id DESC LIMIT ${q.limit}`.execute(db);
      return rows.map(deliveryFromRow);
    },

    async sweep(olderThan) {
      const result = await sql`DELETE FROM ${t.audit_events} WHERE at < ${olderThan}::timestamptz`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}
