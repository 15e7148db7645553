import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSchema, MIGRATIONS, migrate } from '../src/index.js';
import { openTestDatabase, type TestDatabase } from './support/database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase('schema');
});
afterAll(() => database?.close());

describe('migrations', () => {
  // The dump is made on PostgreSQL; PGlite is a newer server whose catalog prints some
  // expressions differently, so the comparison runs where CI runs: on a real server.
  it('produce exactly the committed schema dump (regenerate: npm run schema:dump -w @agentrun/store-postgres)', async ({ skip }) => {
    if (database.kind !== 'postgres') skip('the dump is compared on a PostgreSQL server only');
    const committed = await readFile(new URL('../schema.txt', import.meta.url), 'utf8');
    expect(await describeSchema(database.db)).toBe(committed);
  });

  it('are recorded once each, and migrating again applies nothing', async () => {
    expect(await migrate(database.db)).toEqual({ applied: [] });
    const { rows } = await (await import('kysely')).sql<{ id: string }>`SELECT id FROM agentrun_migrations ORDER BY id`.execute(
      database.db,
    );
    expect(rows.map((r) => r.id)).toEqual(MIGRATIONS.map((m) => m.id));
  });

  it('have unique, ordered ids', () => {
    const ids = MIGRATIONS.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(id).toMatch(/^\d{4}_[a-z0-9_]+$/);
  });
});
