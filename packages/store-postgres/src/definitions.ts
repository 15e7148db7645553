import type { AppliedAutomation, AppliedWebhook, DefinitionSetRecord, DefinitionStore, DefinitionWrite } from '@agentrun/core/store';
import { sql } from 'kysely';
import { insertAuditEvent } from './audit.js';
import { listAutomations, listLiveWebhooks } from './control-plane.js';
import type { Db, Tx } from './db.js';
import { isEnvironmentNameTaken, putEnvironmentRow } from './environments.js';
import { iso, json } from './rows.js';
import { putScheduleRow } from './schedules.js';
import type { Tables } from './tables.js';

/** Thrown inside the write's transaction to roll it back whole. */
class Refused extends Error {
  constructor(readonly reason: 'stale' | 'limit') {
    super(reason);
  }
}

interface DefinitionSetRow {
  version: number;
  applied_at: Date;
  state: { webhooks: AppliedWebhook[]; automations: AppliedAutomation[] };
}

/**
 * Definition sets (table `definition_sets`): the set is one row per factory; a write is one transaction
 * that first moves the row from the version it was planned on (or inserts it), so a concurrent
 * write planned on the same version finds no row to move and rolls back. What a write is planned
 * on is read in one snapshot, so the version the guard checks is the version of all of it.
 */
export function createDefinitions(db: Db, t: Tables): DefinitionStore {
  return {
    get: (teamUid, factoryUid) => readSet(db, t, teamUid, factoryUid),

    snapshot(teamUid, factoryUid) {
      // REPEATABLE READ: the three statements see the database as of the first. At READ COMMITTED
      // each sees what had committed when it began, so an apply committing between them would show
      // its webhooks beside the set it replaced (docs/stores.md: core never strings calls together).
      return db
        .transaction()
        .setIsolationLevel('repeatable read')
        .setAccessMode('read only')
        .execute(async (tx) => ({
          set: await readSet(tx, t, teamUid, factoryUid),
          webhooks: await listLiveWebhooks(tx, t, teamUid, factoryUid),
          automations: await listAutomations(tx, t, teamUid, factoryUid),
        }));
    },

    async write(change) {
      try {
        // READ COMMITTED: the count below then sees every webhook create that held the lock before.
        await db
          .transaction()
          .setIsolationLevel('read committed')
          .execute(async (tx) => {
            // The lock webhook creates take (control-plane.ts): they and this write take turns per factory.
            await sql`SELECT pg_advisory_xact_lock(hashtext(${`agentrun.webhooks:${t.schema}:`} || ${change.set.factoryUid}::text))`.execute(
              tx,
            );
            if (!(await moveVersion(tx, t, change))) throw new Refused('stale');
            await writeRecords(tx, t, change);
            const { rows } = await sql<{ n: number }>`
              SELECT count(*)::int AS n FROM ${t.webhooks} WHERE factory_uid = ${change.set.factoryUid} AND deleted_at IS NULL`.execute(tx);
            if ((rows[0]?.n ?? 0) > change.maxWebhooksPerFactory) throw new Refused('limit');
            if (change.audit) await insertAuditEvent(tx, t, change.audit);
          });
        return { applied: true };
      } catch (error) {
        if (error instanceof Refused) return { applied: false, reason: error.reason };
        throw error;
      }
    },
  };
}

async function readSet(q: Db | Tx, t: Tables, teamUid: string, factoryUid: string): Promise<DefinitionSetRecord | undefined> {
  const { rows } = await sql<DefinitionSetRow>`
    SELECT version, applied_at, state FROM ${t.definition_sets} WHERE team_uid = ${teamUid} AND factory_uid = ${factoryUid}`.execute(q);
  const row = rows[0];
  if (!row) return undefined;
  return { teamUid, factoryUid, version: row.version, appliedAt: iso(row.applied_at), ...row.state };
}

/** The set's row from `expectedVersion` to the new set; false when it is no longer there. */
async function moveVersion(tx: Tx, t: Tables, { set, expectedVersion }: DefinitionWrite): Promise<boolean> {
  const state = json({ webhooks: set.webhooks, automations: set.automations });
  const { rows } =
    expectedVersion === 0
      ? await sql`INSERT INTO ${t.definition_sets} (team_uid, factory_uid, version, applied_at, state)
          VALUES (${set.teamUid}, ${set.factoryUid}, ${set.version}, ${set.appliedAt}::timestamptz, ${state}::jsonb)
          ON CONFLICT (team_uid, factory_uid) DO NOTHING RETURNING 1`.execute(tx)
      : await sql`UPDATE ${t.definition_sets} SET version = ${set.version}, applied_at = ${set.appliedAt}::timestamptz, state = ${state}::jsonb
          WHERE team_uid = ${set.teamUid} AND factory_uid = ${set.factoryUid} AND version = ${expectedVersion} RETURNING 1`.execute(tx);
  return rows.length > 0;
}

async function writeRecords(tx: Tx, t: Tables, change: DefinitionWrite): Promise<void> {
  const { teamUid, factoryUid } = change.set;
  for (const s of change.putSecrets) {
    await sql`INSERT INTO ${t.team_secrets} (team_uid, name, ciphertext, created_at, updated_at)
      VALUES (${s.teamUid}, ${s.name}, ${s.ciphertext}, ${s.createdAt}::timestamptz, ${s.updatedAt}::timestamptz)
      ON CONFLICT (team_uid, name) DO UPDATE SET ciphertext = EXCLUDED.ciphertext, updated_at = EXCLUDED.updated_at`.execute(tx);
  }
  if (change.deleteSecrets.length > 0)
    await sql`DELETE FROM ${t.team_secrets} WHERE team_uid = ${teamUid} AND name = ANY(${[...change.deleteSecrets]}::text[])`.execute(tx);
  for (const w of change.putWebhooks) {
    await sql`INSERT INTO ${t.webhooks} (uid, team_uid, factory_uid, name, auth_mode, signature_scheme, secret_name,
        delivery_id_header, enabled, created_at, updated_at, deleted_at)
      VALUES (${w.uid}, ${w.teamUid}, ${w.factoryUid}, ${w.name}, ${w.authMode}, ${w.signatureScheme}, ${w.secretName},
        ${w.deliveryIdHeader}, ${w.enabled}, ${w.createdAt}::timestamptz, ${w.updatedAt}::timestamptz, ${w.deletedAt}::timestamptz)
      ON CONFLICT (uid) DO UPDATE SET name = EXCLUDED.name, auth_mode = EXCLUDED.auth_mode,
        signature_scheme = EXCLUDED.signature_scheme, secret_name = EXCLUDED.secret_name,
        delivery_id_header = EXCLUDED.delivery_id_header, enabled = EXCLUDED.enabled,
        updated_at = EXCLUDED.updated_at, deleted_at = EXCLUDED.deleted_at`.execute(tx);
  }
  for (const a of change.putAutomations) {
    await sql`INSERT INTO ${t.automations} (id, team_uid, factory_uid, name, prompt, enabled, config, triggers, triggers_text, created_at, updated_at)
      VALUES (${a.id}, ${a.teamUid}, ${a.factoryUid}, ${a.name}, ${a.prompt}, ${a.enabled}, ${json(a.config)}::jsonb,
        ${json(a.triggers)}::jsonb, ${JSON.stringify(a.triggers)}, ${a.createdAt}::timestamptz, ${a.updatedAt}::timestamptz)
      ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, prompt = EXCLUDED.prompt, enabled = EXCLUDED.enabled,
        config = EXCLUDED.config, triggers = EXCLUDED.triggers, triggers_text = EXCLUDED.triggers_text,
        updated_at = EXCLUDED.updated_at`.execute(tx);
  }
  if (change.deleteAutomations.length > 0)
    await sql`DELETE FROM ${t.automations} WHERE team_uid = ${teamUid} AND factory_uid = ${factoryUid}
      AND id = ANY(${[...change.deleteAutomations]}::text[])`.execute(tx);
  await writeEnvironments(tx, t, change);
  await writeSchedules(tx, t, change);
}

/** The write's schedules (docs/schedules.md, definition files): deletes, then puts. */
async function writeSchedules(tx: Tx, t: Tables, change: DefinitionWrite): Promise<void> {
  const { teamUid, factoryUid } = change.set;
  const deletes = change.deleteSchedules ?? [];
  if (deletes.length > 0)
    await sql`DELETE FROM ${t.schedules} WHERE team_uid = ${teamUid} AND factory_uid = ${factoryUid}
      AND id = ANY(${[...deletes]}::text[])`.execute(tx);
  for (const s of change.putSchedules ?? []) await putScheduleRow(tx, t, s);
}

/** The write's environments: deletes first, then puts; a name taken in the team refuses the write as stale (the apply plans again). */
async function writeEnvironments(tx: Tx, t: Tables, change: DefinitionWrite): Promise<void> {
  const { teamUid } = change.set;
  const deletes = change.deleteEnvironments ?? [];
  if (deletes.length > 0)
    await sql`DELETE FROM ${t.environments} WHERE team_uid = ${teamUid} AND id = ANY(${[...deletes]}::text[])`.execute(tx);
  for (const e of change.putEnvironments ?? []) {
    // The violation ends the transaction; nothing of the write stays.
    try {
      await putEnvironmentRow(tx, t, e);
    } catch (error) {
      if (isEnvironmentNameTaken(error)) throw new Refused('stale');
      throw error;
    }
  }
}
