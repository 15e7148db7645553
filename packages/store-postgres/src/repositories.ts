import type { RepositoryRecord, RepositoryStore } from '@agentrun/core/store';
import { sql } from 'kysely';
import { withAudit } from './audit.js';
import type { Db } from './db.js';
import { iso } from './rows.js';
import type { Tables } from './tables.js';

interface RepositoryRow {
  team_uid: string;
  name: string;
  url: string;
  default_branch: string;
  credential_secret: string | null;
  created_at: Date;
}

const toRecord = (r: RepositoryRow): RepositoryRecord => ({
  teamUid: r.team_uid,
  name: r.name,
  url: r.url,
  defaultBranch: r.default_branch,
  credentialSecret: r.credential_secret,
  createdAt: iso(r.created_at),
});

/** Team repositories (table `team_repositories`): one statement per operation; a name is unique per team. */
export function createRepositories(db: Db, t: Tables): RepositoryStore {
  return {
    create: (r, audit) =>
      withAudit(
        db,
        t,
        audit,
        async (q) => {
          const { rows } = await sql<{ name: string }>`
            INSERT INTO ${t.team_repositories} (team_uid, name, url, default_branch, credential_secret, created_at)
            VALUES (${r.teamUid}, ${r.name}, ${r.url}, ${r.defaultBranch}, ${r.credentialSecret}, ${r.createdAt})
            ON CONFLICT (team_uid, name) DO NOTHING
            RETURNING name`.execute(q);
          return rows.length === 1;
        },
        (created) => created,
      ),
    async get(teamUid, name) {
      const { rows } = await sql<RepositoryRow>`
        SELECT * FROM ${t.team_repositories} WHERE team_uid = ${teamUid} AND name = ${name}`.execute(db);
      return rows[0] ? toRecord(rows[0]) : undefined;
    },
    async list(teamUid) {
      const { rows } = await sql<RepositoryRow>`
        SELECT * FROM ${t.team_repositories} WHERE team_uid = ${teamUid} ORDER BY name`.execute(db);
      return rows.map(toRecord);
    },
    delete: (teamUid, name, audit) =>
      withAudit(
        db,
        t,
        audit,
        async (q) => {
          const result = await sql`DELETE FROM ${t.team_repositories} WHERE team_uid = ${teamUid} AND name = ${name}`.execute(q);
          return Number(result.numAffectedRows ?? 0) > 0;
        },
        (deleted) => deleted,
      ),
  };
}
