import { makeRun } from '@agentrun/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { openTestDatabase, type TestDatabase } from './support/database.js';
import { waitUntil } from './support/wait.js';

// The outcome's write answers the run's follow-ups only when its read cannot have missed one
// (runs-sql.ts `completeFollowups`, docs/executors.md "Statements per run"): a follow-up
// committed after the statement's snapshot, while the statement waited for the run's row, is not
// in that read, so the answer must leave them out and the worker read them after the commit.
let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase('outcome_followups');
});
afterAll(() => db?.close());

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();

describe("the outcome's follow-ups", () => {
  it('are left out when a follow-up committed while the outcome waited for the run', async (t) => {
    if (!db.newPool) return t.skip();
    await db.freshStore();
    const store = createPostgresStore({ db: db.db, schema: db.schema, listen: false });
    const run = makeRun({ state: 'INPROGRESS', lease: { workerId: 'w1', expiresAt: at(60_000) }, createdAt: at(0), updatedAt: at(0) });
    await store.runs.create({ run, attachments: [] });
    // Another process's follow-up, as the store writes one: the run's row first, then the follow-up.
    const other = db.newPool(2);
    const client = await other.connect();
    try {
      await client.query('BEGIN');
      await client.query(`UPDATE ${db.schema}.runs SET updated_at = updated_at WHERE id = $1`, [run.id]);
      await client.query(
        `INSERT INTO ${db.schema}.run_followups (id, run_id, message, created_at, creator_uid) VALUES ('f1', $1, 'late', $2, 'u1')`,
        [run.id, at(5)],
      );
      const outcome = store.runs.transition({
        runId: run.id,
        expect: { state: 'INPROGRESS', workerId: 'w1' },
        patch: { state: 'SUCCEEDED', lease: null },
        now: at(10),
        transcript: { state: true },
        followups: true,
      });
      // The outcome's statement has its snapshot and waits for the row: then the follow-up commits.
      // (Asked on a connection of its own: the store's pool may have no other. The text shown is
      // cut at `track_activity_query_size`: its start names the locked row.)
      await waitUntil(
        async () =>
          (
            await other.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`,
              [`%locked_xmin%${db.schema}%`],
            )
          ).rows[0]?.n ?? 0,
        (n) => n > 0,
        'the outcome waiting for the run',
      );
      await client.query('COMMIT');
      const { result } = await outcome;
      expect(result).toMatchObject({ applied: true, run: { state: 'SUCCEEDED' } });
      expect(result).not.toHaveProperty('followups');
      // Read after the commit, as the worker then does: it is there.
      expect((await store.runs.listFollowups(run.id)).map((f) => f.id)).toEqual(['f1']);
    } finally {
      client.release();
      await other.end();
    }
  });
});
