import type { AgentIdentityRecord, AgentIdentityStore } from '@agentrun/core/store';
import { sql } from 'kysely';
import { withAudit } from './audit.js';
import type { Db, Tx } from './db.js';
import { iso } from './rows.js';
import type { Tables } from './tables.js';

interface AgentIdentityRow {
  team_uid: string;
  uid: string;
  name: string;
  description: string | null;
  base_model: string | null;
  prompt: string | null;
  created_at: Date;
  updated_at: Date;
}

const fromRow = (r: AgentIdentityRow): AgentIdentityRecord => ({
  uid: r.uid,
  teamUid: r.team_uid,
  name: r.name,
  description: r.description,
  baseModel: r.base_model,
  prompt: r.prompt,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

/** The `agent_identities` table (docs/run-api.md, "Agent identities"). */
export function createAgentIdentities(db: Db, t: Tables): AgentIdentityStore {
  return {
    async get(teamUid, uid) {
      const { rows } =
        await sql<AgentIdentityRow>`SELECT * FROM ${t.agent_identities} WHERE team_uid = ${teamUid} AND uid = ${uid}`.execute(db);
      return rows[0] ? fromRow(rows[0]) : undefined;
    },
    async list(teamUid) {
      const { rows } = await sql<AgentIdentityRow>`
        SELECT * FROM ${t.agent_identities} WHERE team_uid = ${teamUid} ORDER BY created_at, uid`.execute(db);
      return rows.map(fromRow);
    },
    async put(a, audit) {
      // A replace keeps created_at.
      const write = async (q: Db | Tx) => {
        await sql`
          INSERT INTO ${t.agent_identities} (team_uid, uid, name, description, base_model, prompt, created_at, updated_at)
          VALUES (${a.teamUid}, ${a.uid}, ${a.name}, ${a.description}, ${a.baseModel}, ${a.prompt},
            ${a.createdAt}::timestamptz, ${a.updatedAt}::timestamptz)
          ON CONFLICT (team_uid, uid) DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description,
            base_model = EXCLUDED.base_model, prompt = EXCLUDED.prompt, updated_at = EXCLUDED.updated_at`.execute(q);
      };
      await withAudit(db, t, audit, write, () => true);
    },
    async delete(teamUid, uid, audit) {
      const write = async (q: Db | Tx) =>
        Number(
          (await sql`DELETE FROM ${t.agent_identities} WHERE team_uid = ${teamUid} AND uid = ${uid}`.execute(q)).numAffectedRows ?? 0,
        ) > 0;
      return withAudit(db, t, audit, write, (deleted) => deleted);
    },
  };
}
