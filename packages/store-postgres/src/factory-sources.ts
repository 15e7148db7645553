import { type FactorySourceRecord, type FactorySourceStore, SOURCE_APPLIES_KEPT, type SourceApplyRecord } from '@agentrun/core/store';
import { sql } from 'kysely';
import { insertAuditEvent, withAudit } from './audit.js';
import type { Db } from './db.js';
import { iso, json } from './rows.js';
import type { Tables } from './tables.js';

interface SourceRow {
  team_uid: string;
  factory_uid: string;
  repository: string;
  branch: string;
  directory: string;
  push_scheme: FactorySourceRecord['pushScheme'];
  push_secret: string | null;
  created_at: Date;
  updated_at: Date;
}

interface ApplyRow {
  id: string;
  team_uid: string;
  factory_uid: string;
  commit: string;
  triggered_by: SourceApplyRecord['triggeredBy'];
  status: SourceApplyRecord['status'];
  errors: SourceApplyRecord['errors'];
  version: number | null;
  started_at: Date;
  finished_at: Date | null;
}

const toSource = (r: SourceRow): FactorySourceRecord => ({
  teamUid: r.team_uid,
  factoryUid: r.factory_uid,
  repository: r.repository,
  branch: r.branch,
  directory: r.directory,
  pushScheme: r.push_scheme,
  pushSecret: r.push_secret,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

const toApply = (r: ApplyRow): SourceApplyRecord => ({
  id: r.id,
  teamUid: r.team_uid,
  factoryUid: r.factory_uid,
  commit: r.commit,
  triggeredBy: r.triggered_by,
  status: r.status,
  errors: r.errors,
  version: r.version,
  startedAt: iso(r.started_at),
  finishedAt: r.finished_at === null ? null : iso(r.finished_at),
});

/**
 * Factory sources and their applies (tables `factory_sources`, `factory_source_applies`). A claim is one transaction that locks the
 * source's row first, so two processes claiming for one factory take turns: what the first wrote
 * is what the second decides on.
 */
export function createFactorySources(db: Db, t: Tables): FactorySourceStore {
  return {
    put: async (r, audit) => {
      await withAudit(
        db,
        t,
        audit,
        async (q) => {
          await sql`
            INSERT INTO ${t.factory_sources} (team_uid, factory_uid, repository, branch, directory, push_scheme, push_secret, created_at, updated_at)
            VALUES (${r.teamUid}, ${r.factoryUid}, ${r.repository}, ${r.branch}, ${r.directory}, ${r.pushScheme}, ${r.pushSecret},
              ${r.createdAt}, ${r.updatedAt})
            ON CONFLICT (factory_uid) DO UPDATE SET repository = EXCLUDED.repository, branch = EXCLUDED.branch,
              directory = EXCLUDED.directory, push_scheme = EXCLUDED.push_scheme, push_secret = EXCLUDED.push_secret,
              updated_at = EXCLUDED.updated_at
            WHERE ${t.factory_sources}.team_uid = EXCLUDED.team_uid`.execute(q);
          return true;
        },
        (changed) => changed,
      );
    },
    async get(teamUid, factoryUid) {
      const { rows } = await sql<SourceRow>`
        SELECT * FROM ${t.factory_sources} WHERE team_uid = ${teamUid} AND factory_uid = ${factoryUid}`.execute(db);
      return rows[0] ? toSource(rows[0]) : undefined;
    },
    async find(factoryUid) {
      const { rows } = await sql<SourceRow>`SELECT * FROM ${t.factory_sources} WHERE factory_uid = ${factoryUid}`.execute(db);
      return rows[0] ? toSource(rows[0]) : undefined;
    },
    delete: (teamUid, factoryUid, audit) =>
      withAudit(
        db,
        t,
        audit,
        async (q) => {
          const result = await sql`DELETE FROM ${t.factory_sources} WHERE team_uid = ${teamUid} AND factory_uid = ${factoryUid}`.execute(q);
          return Number(result.numAffectedRows ?? 0) > 0;
        },
        (deleted) => deleted,
      ),
    async list(after, limit) {
      const { rows } = await sql<SourceRow>`
        SELECT * FROM ${t.factory_sources} WHERE ${after === undefined ? sql`true` : sql`factory_uid > ${after}`}
        ORDER BY factory_uid LIMIT ${limit}`.execute(db);
      return rows.map(toSource);
    },
    claimApply: (a, staleBefore) =>
      db.transaction().execute(async (tx) => {
        const { rows: source } = await sql`
          SELECT 1 FROM ${t.factory_sources} WHERE team_uid = ${a.teamUid} AND factory_uid = ${a.factoryUid} FOR UPDATE`.execute(tx);
        if (source.length === 0) return 'done';
        // The factory's live applies (at most the kept 100), the commit's, later ones and applying ones first.
        const { rows } = await sql<{ commit: string; later: boolean; applying: boolean }>`
          SELECT commit, started_at > ${a.startedAt}::timestamptz AS later, status = 'applying' AS applying
          FROM ${t.factory_source_applies}
          WHERE factory_uid = ${a.factoryUid} AND (status <> 'applying' OR started_at >= ${staleBefore}::timestamptz)
            AND (commit = ${a.commit} OR status = 'applying' OR started_at > ${a.startedAt}::timestamptz)`.execute(tx);
        if (rows.some((r) => r.commit === a.commit)) return 'done';
        if (rows.some((r) => r.later)) return 'superseded';
        if (rows.some((r) => r.applying)) return 'busy';
        await sql`
          INSERT INTO ${t.factory_source_applies} (id, team_uid, factory_uid, commit, triggered_by, status, errors, version, started_at, finished_at)
          VALUES (${a.id}, ${a.teamUid}, ${a.factoryUid}, ${a.commit}, ${a.triggeredBy}, ${a.status}, ${json(a.errors)}::jsonb,
            ${a.version}, ${a.startedAt}, ${a.finishedAt})
          ON CONFLICT (factory_uid, commit) DO UPDATE SET id = EXCLUDED.id, triggered_by = EXCLUDED.triggered_by,
            status = EXCLUDED.status, errors = EXCLUDED.errors, version = EXCLUDED.version,
            started_at = EXCLUDED.started_at, finished_at = EXCLUDED.finished_at`.execute(tx);
        await sql`
          DELETE FROM ${t.factory_source_applies} WHERE factory_uid = ${a.factoryUid} AND id IN (
            SELECT id FROM ${t.factory_source_applies} WHERE factory_uid = ${a.factoryUid}
            ORDER BY started_at DESC, id DESC OFFSET ${SOURCE_APPLIES_KEPT})`.execute(tx);
        return 'claimed';
      }),
    finishApply: (o, audit) =>
      db.transaction().execute(async (tx) => {
        const result = await sql`
          UPDATE ${t.factory_source_applies} SET status = ${o.status}, errors = ${json(o.errors)}::jsonb, version = ${o.version},
            finished_at = ${o.finishedAt}
          WHERE id = ${o.id}`.execute(tx);
        const updated = Number(result.numAffectedRows ?? 0) > 0;
        if (updated && audit) await insertAuditEvent(tx, t, audit);
        return updated;
      }),
    async listApplies(teamUid, factoryUid, q) {
      const { rows } = await sql<ApplyRow>`
        SELECT * FROM ${t.factory_source_applies}
        WHERE team_uid = ${teamUid} AND factory_uid = ${factoryUid}
          ${q.after === undefined ? sql`` : sql`AND (started_at, id) < (${q.after.startedAt}::timestamptz, ${q.after.id})`}
        ORDER BY started_at DESC, id DESC LIMIT ${q.limit}`.execute(db);
      return rows.map(toApply);
    },
  };
}
