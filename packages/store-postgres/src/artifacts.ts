import type { AddArtifactResult, ArtifactQuota, ArtifactRecord, ArtifactStore } from '@agentrun/core/store';
import { sql } from 'kysely';
import type { Db } from './db.js';
import { iso, json } from './rows.js';
import type { Tables } from './tables.js';

interface ArtifactRow {
  uid: string;
  run_id: string;
  team_uid: string;
  created_at: Date;
  item: ArtifactRecord['item'];
  blob_key: string | null;
  content_type: string | null;
  size_bytes: string;
}

/**
 * Artifacts (table `artifacts` and `runs.artifacts`; docs/stores.md "Artifacts").
 * An add is one transaction: the run's row locked first, so adds to one run take turns and each
 * counts what the one before it committed (READ COMMITTED reads afresh per statement); then the
 * quota, the record and the run's `artifacts`, or nothing.
 */
export function createArtifacts(db: Db, t: Tables): ArtifactStore {
  return {
    add: (record: ArtifactRecord, quota: ArtifactQuota) =>
      db.transaction().execute(async (tx): Promise<AddArtifactResult> => {
        const locked = await sql`SELECT 1 FROM ${t.runs} WHERE id = ${record.runId} FOR UPDATE`.execute(tx);
        if (locked.rows.length === 0) return 'no_run';
        const held = await sql<{ n: string; bytes: string }>`
          SELECT count(*) AS n, coalesce(sum(size_bytes), 0) AS bytes FROM ${t.artifacts} WHERE run_id = ${record.runId}`.execute(tx);
        const { n, bytes } = held.rows[0] ?? { n: '0', bytes: '0' };
        const size = record.blob?.sizeBytes ?? 0;
        if (Number(n) + 1 > quota.maxCount || Number(bytes) + size > quota.maxBytes) return 'limit';
        await sql`INSERT INTO ${t.artifacts} (uid, run_id, team_uid, created_at, artifact_type, item, blob_key, content_type, size_bytes)
          VALUES (${record.uid}, ${record.runId}, ${record.teamUid}, ${record.createdAt}::timestamptz, ${record.item.artifact_type},
            ${json(record.item)}::jsonb, ${record.blob?.key ?? null}, ${record.blob?.contentType ?? null}, ${size})`.execute(tx);
        await sql`UPDATE ${t.runs} SET artifacts = artifacts || jsonb_build_array(${json(record.item)}::jsonb)
          WHERE id = ${record.runId}`.execute(tx);
        return 'added';
      }),
    async usage(runId) {
      const { rows } = await sql<{ n: string; bytes: string }>`
        SELECT count(*) AS n, coalesce(sum(size_bytes), 0) AS bytes FROM ${t.artifacts} WHERE run_id = ${runId}`.execute(db);
      return { count: Number(rows[0]?.n ?? 0), bytes: Number(rows[0]?.bytes ?? 0) };
    },
    async get(uid, teamUid) {
      const team = teamUid === undefined ? sql`` : sql` AND team_uid = ${teamUid}`;
      const { rows } = await sql<ArtifactRow>`SELECT * FROM ${t.artifacts} WHERE uid = ${uid}${team}`.execute(db);
      const r = rows[0];
      if (!r) return undefined;
      return {
        uid: r.uid,
        runId: r.run_id,
        teamUid: r.team_uid,
        createdAt: iso(r.created_at),
        item: r.item,
        blob:
          r.blob_key === null
            ? null
            : { key: r.blob_key, contentType: r.content_type ?? 'application/octet-stream', sizeBytes: Number(r.size_bytes) },
      };
    },
  };
}
