import type { AuditEventRecord, ContainerLimits, EnvironmentRecord, EnvironmentStore } from '@agentrun/core/store';
import { type RawBuilder, sql } from 'kysely';
import { withAudit } from './audit.js';
import type { Db, Tx } from './db.js';
import { iso, json } from './rows.js';
import type { Tables } from './tables.js';

interface EnvironmentRow {
  team_uid: string;
  id: string;
  factory_uid: string | null;
  name: string;
  repositories: EnvironmentRecord['repositories'];
  setup: string[];
  variables: Record<string, string>;
  setup_timeout_seconds: number;
  image: string | null;
  limits: ContainerLimits | null;
  created_at: Date;
  updated_at: Date;
}

const fromRow = (r: EnvironmentRow): EnvironmentRecord => ({
  id: r.id,
  teamUid: r.team_uid,
  factoryUid: r.factory_uid,
  name: r.name,
  repositories: r.repositories,
  setup: r.setup,
  variables: r.variables,
  setupTimeoutSeconds: r.setup_timeout_seconds,
  ...(r.image !== null ? { image: r.image } : {}),
  ...(r.limits !== null ? { limits: r.limits } : {}),
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

/**
 * Create or replace one environment in one statement (a replace keeps created_at; xmax is 0 only on
 * a row this statement inserted); a definitions write (definitions.ts) uses it in its transaction.
 * A name another environment of the team has breaks `environments_team_name`.
 */
export async function putEnvironmentRow(q: Db | Tx, t: Tables, e: EnvironmentRecord): Promise<{ created: boolean } | undefined> {
  const { rows } = await sql<{ created: boolean }>`
    INSERT INTO ${t.environments} (team_uid, id, factory_uid, name, repositories, setup, variables, setup_timeout_seconds, image, limits,
      created_at, updated_at)
    VALUES (${e.teamUid}, ${e.id}, ${e.factoryUid}, ${e.name}, ${json(e.repositories)}::jsonb, ${json(e.setup)}::jsonb,
      ${json(e.variables)}::jsonb, ${e.setupTimeoutSeconds}, ${e.image ?? null}, ${json(e.limits)}::jsonb,
      ${e.createdAt}::timestamptz, ${e.updatedAt}::timestamptz)
    ON CONFLICT (team_uid, id) DO UPDATE SET factory_uid = EXCLUDED.factory_uid, name = EXCLUDED.name,
      repositories = EXCLUDED.repositories, setup = EXCLUDED.setup, variables = EXCLUDED.variables,
      setup_timeout_seconds = EXCLUDED.setup_timeout_seconds, image = EXCLUDED.image, limits = EXCLUDED.limits,
      updated_at = EXCLUDED.updated_at
    RETURNING (xmax = 0) AS created`.execute(q);
  return rows[0];
}

/** Whether `error` is the unique violation of an environment name taken in the team. */
export function isEnvironmentNameTaken(error: unknown): boolean {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  return code === '23505' && constraint === 'environments_team_name';
}

/** The `environments` table (docs/repositories.md, "Environments"). */
export function createEnvironments(db: Db, t: Tables): EnvironmentStore {
  const rows = async <R>(query: RawBuilder<unknown>, executor: Db | Tx = db): Promise<R[]> => (await query.execute(executor)).rows as R[];
  const audited = <T>(audit: AuditEventRecord | undefined, write: (q: Db | Tx) => Promise<T>, changed: (result: T) => boolean) =>
    withAudit(db, t, audit, write, changed);
  return {
    async get(teamUid, id) {
      const [row] = await rows<EnvironmentRow>(sql`SELECT * FROM ${t.environments} WHERE team_uid = ${teamUid} AND id = ${id}`);
      return row ? fromRow(row) : undefined;
    },
    async list(teamUid) {
      return (await rows<EnvironmentRow>(sql`SELECT * FROM ${t.environments} WHERE team_uid = ${teamUid} ORDER BY name`)).map(fromRow);
    },
    async put(e, audit) {
      const write = async (q: Db | Tx) => {
        const row = await putEnvironmentRow(q, t, e);
        return { ok: true as const, created: row?.created === true };
      };
      try {
        return await audited(audit, write, () => true);
      } catch (error) {
        if (isEnvironmentNameTaken(error)) return { ok: false, reason: 'name_taken' };
        throw error;
      }
    },
    async delete(teamUid, id, audit) {
      const write = async (q: Db | Tx) =>
        Number((await sql`DELETE FROM ${t.environments} WHERE team_uid = ${teamUid} AND id = ${id}`.execute(q)).numAffectedRows ?? 0) > 0;
      return audited(audit, write, (deleted) => deleted);
    },
  };
}
