import { makeRun } from '@agentrun/core/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { openTestDatabase, type TestDatabase } from './support/database.js';

// A host that deletes runs with its own SQL deletes their transcripts and attachments with them:
// `run_events` and `run_attachments` have no foreign key to `runs`, so a statement trigger does
// what `ON DELETE CASCADE` would (migrations/baseline/runs.ts; docs/production.md, "What each index serves").
let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase('run_deletion');
});
afterAll(() => db?.close());

const NOW = '2026-01-01T00:00:00.000Z';

describe('deleting runs', () => {
  it("deletes their events and leaves other runs' events", async () => {
    await db.freshStore();
    const store = createPostgresStore({ db: db.db, schema: db.schema, listen: false });
    const [gone, kept] = [makeRun({ createdAt: NOW, updatedAt: NOW }), makeRun({ createdAt: NOW, updatedAt: NOW })];
    for (const run of [gone, kept]) {
      await store.runs.create({ run, attachments: [] });
      // The claim writes the run's `state` event.
      await store.runs.claimNext({ workerId: 'w1', now: NOW, leaseExpiresAt: '2026-01-01T00:05:00.000Z' });
    }
    const events = async (runId: string) =>
      (
        await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(`${db.schema}.run_events`)} WHERE run_id = ${runId}`.execute(
          db.db,
        )
      ).rows[0]?.n;
    expect(await events(gone.id)).toBe(1);
    await sql`DELETE FROM ${sql.table(`${db.schema}.runs`)} WHERE id = ${gone.id}`.execute(db.db);
    expect(await events(gone.id)).toBe(0);
    expect(await events(kept.id)).toBe(1);
  });

  it("deletes their attachments and leaves other runs' attachments", async () => {
    await db.freshStore();
    const store = createPostgresStore({ db: db.db, schema: db.schema, listen: false });
    const [gone, kept] = [makeRun({ createdAt: NOW, updatedAt: NOW }), makeRun({ createdAt: NOW, updatedAt: NOW })];
    for (const run of [gone, kept]) {
      const data = new TextEncoder().encode('{}');
      await store.runs.create({ run, attachments: [{ runId: run.id, fileName: 'a.json', mimeType: 'application/json', data }] });
    }
    const attachments = async (runId: string) =>
      (
        await sql<{
          n: number;
        }>`SELECT count(*)::int AS n FROM ${sql.table(`${db.schema}.run_attachments`)} WHERE run_id = ${runId}`.execute(db.db)
      ).rows[0]?.n;
    expect(await attachments(gone.id)).toBe(1);
    await sql`DELETE FROM ${sql.table(`${db.schema}.runs`)} WHERE id = ${gone.id}`.execute(db.db);
    expect(await attachments(gone.id)).toBe(0);
    expect(await attachments(kept.id)).toBe(1);
  });
});
