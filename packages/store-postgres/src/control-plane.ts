import type { Store } from '@agentrun/core';
import type {
  AuditEventRecord,
  AutomationRecord,
  AutomationStore,
  FactoryStore,
  SecretStore,
  WebhookPatch,
  WebhookRecord,
  WebhookStore,
} from '@agentrun/core/store';
import { type RawBuilder, sql } from 'kysely';
import { insertAuditEvent, withAudit } from './audit.js';
import type { Db, Tx } from './db.js';
import {
  type AutomationRow,
  automationFromRow,
  type FactoryRow,
  factoryFromRow,
  json,
  type SecretRow,
  secretFromRow,
  type WebhookRow,
  webhookFromRow,
} from './rows.js';
import type { Tables } from './tables.js';

/** Thrown inside a webhook create to roll it back: nothing of a refused create is kept. */
class Refused extends Error {
  constructor(readonly reason: 'limit' | 'secret_exists') {
    super(reason);
  }
}

/**
 * Factories, team secrets, webhooks and automations (migrations/baseline/control-plane.ts). Every
 * operation is one statement, except a webhook create: one transaction, see there. A write given an
 * audit event runs with it in one transaction (audit.ts `withAudit`).
 */
export function createControlPlane(db: Db, t: Tables): Pick<Store, 'factories' | 'secrets' | 'webhooks' | 'automations'> {
  const rows = async <R>(query: RawBuilder<unknown>, executor: Db | Tx = db): Promise<R[]> => (await query.execute(executor)).rows as R[];
  const affected = async (query: RawBuilder<unknown>, executor: Db | Tx = db): Promise<number> =>
    Number((await query.execute(executor)).numAffectedRows ?? 0);
  const audited = <T>(audit: AuditEventRecord | undefined, write: (q: Db | Tx) => Promise<T>, changed: (result: T) => boolean) =>
    withAudit(db, t, audit, write, changed);

  const factories: FactoryStore = {
    async create(f) {
      try {
        await sql`INSERT INTO ${t.factories} (uid, team_uid, name, foreman_agent_identity_uid, created_at, updated_at)
          VALUES (${f.uid}, ${f.teamUid}, ${f.name}, ${f.foremanAgentIdentityUid}, ${f.createdAt}::timestamptz, ${f.updatedAt}::timestamptz)`.execute(
          db,
        );
        return { created: true };
      } catch (error) {
        const constraint = uniqueViolation(error);
        // The unique index factories_team_foreman: another factory of the team has the foreman.
        if (constraint === 'factories_team_foreman') return { created: false, reason: 'foreman_taken' };
        if (constraint === 'factories_pkey') throw new Error(`factory ${f.uid} already exists`, { cause: error });
        throw error;
      }
    },
    async get(teamUid, uid) {
      const [row] = await rows<FactoryRow>(sql`SELECT * FROM ${t.factories} WHERE uid = ${uid} AND team_uid = ${teamUid}`);
      return row ? factoryFromRow(row) : undefined;
    },
    async list(teamUid) {
      const found = await rows<FactoryRow>(sql`SELECT * FROM ${t.factories} WHERE team_uid = ${teamUid} ORDER BY created_at, uid`);
      return found.map(factoryFromRow);
    },
    async findByForeman(teamUid, agentIdentityUid) {
      const [row] = await rows<FactoryRow>(
        sql`SELECT * FROM ${t.factories} WHERE team_uid = ${teamUid} AND foreman_agent_identity_uid = ${agentIdentityUid}`,
      );
      return row ? factoryFromRow(row) : undefined;
    },
  };

  const secrets: SecretStore = {
    async put(s, audit) {
      // One statement for create-or-replace. A replace keeps created_at; xmax is 0 only on a row
      // version this statement inserted (an update through ON CONFLICT sets it to our transaction).
      const write = async (q: Db | Tx) => {
        const [row] = await rows<{ created: boolean }>(
          sql`
          INSERT INTO ${t.team_secrets} (team_uid, name, ciphertext, created_at, updated_at)
          VALUES (${s.teamUid}, ${s.name}, ${s.ciphertext}, ${s.createdAt}::timestamptz, ${s.updatedAt}::timestamptz)
          ON CONFLICT (team_uid, name) DO UPDATE SET ciphertext = EXCLUDED.ciphertext, updated_at = EXCLUDED.updated_at
          RETURNING (xmax = 0) AS created`,
          q,
        );
        return { created: row?.created === true };
      };
      return audited(audit, write, () => true);
    },
    async get(teamUid, name) {
      const [row] = await rows<SecretRow>(sql`SELECT * FROM ${t.team_secrets} WHERE team_uid = ${teamUid} AND name = ${name}`);
      return row ? secretFromRow(row) : undefined;
    },
    async list(teamUid) {
      // name is COLLATE "C": byte order, read from the primary key.
      return (await rows<SecretRow>(sql`SELECT * FROM ${t.team_secrets} WHERE team_uid = ${teamUid} ORDER BY name`)).map(secretFromRow);
    },
    async delete(teamUid, name, audit) {
      const write = async (q: Db | Tx) =>
        (await affected(sql`DELETE FROM ${t.team_secrets} WHERE team_uid = ${teamUid} AND name = ${name}`, q)) > 0;
      return audited(audit, write, (deleted) => deleted);
    },
    async scan(after, limit) {
      // Keyset pages in primary-key order; the row comparison reads the same index.
      const beyond = after ? sql`WHERE (team_uid, name) > (${after.teamUid}, ${after.name})` : sql``;
      return (await rows<SecretRow>(sql`SELECT * FROM ${t.team_secrets} ${beyond} ORDER BY team_uid, name LIMIT ${limit}`)).map(
        secretFromRow,
      );
    },
    async reseal(teamUid, name, expected, ciphertext) {
      // Compare-and-set on the old sealed value: a write (or another re-seal) in between wins.
      return (
        (await affected(
          sql`UPDATE ${t.team_secrets} SET ciphertext = ${ciphertext}
            WHERE team_uid = ${teamUid} AND name = ${name} AND ciphertext = ${expected}`,
        )) > 0
      );
    },
  };

  const webhooks: WebhookStore = {
    async create({ webhook: w, secret: s, maxPerFactory, audit }) {
      try {
        // READ COMMITTED whatever the server's default: each statement below then reads a snapshot
        // taken after the lock was granted, so it sees the webhooks of the creates that held it
        // before. (Under REPEATABLE READ the snapshot would predate the wait, and the count be stale.)
        await db
          .transaction()
          .setIsolationLevel('read committed')
          .execute(async (tx) => {
            // Creates for one factory (of this schema) take turns from here to commit, so count-then-insert is exact.
            // An advisory lock rather than a row lock: the factory's row need not exist in this store.
            await sql`SELECT pg_advisory_xact_lock(hashtext(${`agentrun.webhooks:${t.schema}:`} || ${w.factoryUid}::text))`.execute(tx);
            const [live] = await rows<{ n: number }>(
              sql`SELECT count(*)::int AS n FROM ${t.webhooks} WHERE factory_uid = ${w.factoryUid} AND deleted_at IS NULL`,
              tx,
            );
            if ((live?.n ?? 0) >= maxPerFactory) throw new Refused('limit');
            if (s) {
              const inserted = await rows(
                sql`INSERT INTO ${t.team_secrets} (team_uid, name, ciphertext, created_at, updated_at)
                  VALUES (${s.teamUid}, ${s.name}, ${s.ciphertext}, ${s.createdAt}::timestamptz, ${s.updatedAt}::timestamptz)
                  ON CONFLICT (team_uid, name) DO NOTHING RETURNING name`,
                tx,
              );
              if (inserted.length === 0) throw new Refused('secret_exists');
            }
            await sql`INSERT INTO ${t.webhooks} (uid, team_uid, factory_uid, name, auth_mode, signature_scheme, secret_name,
                delivery_id_header, enabled, created_at, updated_at, deleted_at)
              VALUES (${w.uid}, ${w.teamUid}, ${w.factoryUid}, ${w.name}, ${w.authMode}, ${w.signatureScheme}, ${w.secretName},
                ${w.deliveryIdHeader}, ${w.enabled}, ${w.createdAt}::timestamptz, ${w.updatedAt}::timestamptz, ${w.deletedAt}::timestamptz)`.execute(
              tx,
            );
            if (audit) await insertAuditEvent(tx, t, audit);
          });
        return { created: true };
      } catch (error) {
        if (error instanceof Refused) return { created: false, reason: error.reason };
        throw error;
      }
    },
    async get(teamUid, factoryUid, uid) {
      const [row] = await rows<WebhookRow>(
        sql`SELECT * FROM ${t.webhooks} WHERE uid = ${uid} AND team_uid = ${teamUid} AND factory_uid = ${factoryUid}`,
      );
      return row ? webhookFromRow(row) : undefined;
    },
    async getByUid(uid) {
      const [row] = await rows<WebhookRow>(sql`SELECT * FROM ${t.webhooks} WHERE uid = ${uid}`);
      return row ? webhookFromRow(row) : undefined;
    },
    list: (teamUid, factoryUid) => listLiveWebhooks(db, t, teamUid, factoryUid),
    async update(teamUid, factoryUid, uid, patch, now, audit) {
      const write = async (q: Db | Tx) => {
        const [row] = await rows<WebhookRow>(
          sql`
          UPDATE ${t.webhooks} SET ${sql.join(webhookAssignments(patch, now))}
          WHERE uid = ${uid} AND team_uid = ${teamUid} AND factory_uid = ${factoryUid} AND deleted_at IS NULL
          RETURNING *`,
          q,
        );
        return row ? webhookFromRow(row) : undefined;
      };
      return audited(audit, write, (updated) => updated !== undefined);
    },
  };

  const automations: AutomationStore = {
    async create(a, audit) {
      try {
        await audited(
          audit,
          (q) =>
            sql`INSERT INTO ${t.automations} (id, team_uid, factory_uid, name, prompt, enabled, config, triggers, triggers_text, created_at, updated_at)
          VALUES (${a.id}, ${a.teamUid}, ${a.factoryUid}, ${a.name}, ${a.prompt}, ${a.enabled}, ${json(a.config)}::jsonb,
            ${json(a.triggers)}::jsonb, ${JSON.stringify(a.triggers)}, ${a.createdAt}::timestamptz, ${a.updatedAt}::timestamptz)`.execute(
              q,
            ),
          () => true,
        );
      } catch (error) {
        if (uniqueViolation(error) === 'automations_pkey') throw new Error(`automation ${a.id} already exists`, { cause: error });
        throw error;
      }
    },
    async get(teamUid, factoryUid, id) {
      const [row] = await rows<AutomationRow>(
        sql`SELECT * FROM ${t.automations} WHERE id = ${id} AND team_uid = ${teamUid} AND factory_uid = ${factoryUid}`,
      );
      return row ? automationFromRow(row) : undefined;
    },
    list: (teamUid, factoryUid) => listAutomations(db, t, teamUid, factoryUid),
    async replace(a: AutomationRecord, audit) {
      // Everything but the identity and created_at: a replace keeps when the automation was made.
      const write = (q: Db | Tx) =>
        affected(
          sql`
        UPDATE ${t.automations} SET name = ${a.name}, prompt = ${a.prompt}, enabled = ${a.enabled}, config = ${json(a.config)}::jsonb,
          triggers = ${json(a.triggers)}::jsonb, triggers_text = ${JSON.stringify(a.triggers)}, updated_at = ${a.updatedAt}::timestamptz
        WHERE id = ${a.id} AND team_uid = ${a.teamUid} AND factory_uid = ${a.factoryUid}`,
          q,
        );
      return (await audited(audit, write, (n) => n > 0)) > 0;
    },
    async delete(teamUid, factoryUid, id, audit) {
      const write = (q: Db | Tx) =>
        affected(sql`DELETE FROM ${t.automations} WHERE id = ${id} AND team_uid = ${teamUid} AND factory_uid = ${factoryUid}`, q);
      return (await audited(audit, write, (n) => n > 0)) > 0;
    },
    async listForWebhook(webhookUid) {
      // Containment on the GIN index automations_triggers (migrations/baseline/control-plane.ts); the query must say
      // `enabled` for that partial index to apply. The pattern is a parameter: JSON text.
      const selecting = json([{ provider: 'webhook', filter: { webhook_ids: [webhookUid] } }]);
      const found = await rows<AutomationRow>(sql`
        SELECT * FROM ${t.automations} WHERE enabled AND triggers @> ${selecting}::jsonb ORDER BY created_at, id`);
      return found.map(automationFromRow);
    },
  };

  return { factories, secrets, webhooks, automations };
}

/** A factory's live webhooks, oldest first: `webhooks.list`, and part of a definitions snapshot (definitions.ts). */
export async function listLiveWebhooks(q: Db | Tx, t: Tables, teamUid: string, factoryUid: string): Promise<WebhookRecord[]> {
  const { rows } = await sql<WebhookRow>`
    SELECT * FROM ${t.webhooks} WHERE factory_uid = ${factoryUid} AND team_uid = ${teamUid} AND deleted_at IS NULL
    ORDER BY created_at, uid`.execute(q);
  return rows.map(webhookFromRow);
}

/** A factory's automations, oldest first: `automations.list`, and part of a definitions snapshot (definitions.ts). */
export async function listAutomations(q: Db | Tx, t: Tables, teamUid: string, factoryUid: string): Promise<AutomationRecord[]> {
  const { rows } = await sql<AutomationRow>`
    SELECT * FROM ${t.automations} WHERE team_uid = ${teamUid} AND factory_uid = ${factoryUid} ORDER BY created_at, id`.execute(q);
  return rows.map(automationFromRow);
}

/** SET assignments for the fields a patch gives, and `updated_at`. */
function webhookAssignments(patch: WebhookPatch, now: string): RawBuilder<unknown>[] {
  const sets: RawBuilder<unknown>[] = [];
  if (patch.enabled !== undefined) sets.push(sql`enabled = ${patch.enabled}`);
  if (patch.deliveryIdHeader !== undefined) sets.push(sql`delivery_id_header = ${patch.deliveryIdHeader}`);
  if (patch.deletedAt !== undefined) sets.push(sql`deleted_at = ${patch.deletedAt}::timestamptz`);
  sets.push(sql`updated_at = ${now}::timestamptz`);
  return sets;
}

/** The constraint a unique violation (SQLSTATE 23505) broke, from `pg` or PGlite; else undefined. */
function uniqueViolation(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  return code === '23505' && typeof constraint === 'string' ? constraint : undefined;
}
