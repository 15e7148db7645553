import { readFile } from 'node:fs/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hotStatements, renderStatements } from '../src/render-statements.js';
import { openTestDatabase, type TestDatabase } from './support/database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase('statements');
});
afterAll(() => database?.close());

describe('statements.sql', () => {
  it('is the hot statements as the code renders them (regenerate: npm run statements:dump -w @agentrun/store-postgres)', async () => {
    const committed = await readFile(new URL('../statements.sql', import.meta.url), 'utf8');
    expect(renderStatements()).toBe(committed);
  });

  it('holds statements the migrated schema prepares, every one', async () => {
    const statements = hotStatements(database.schema);
    expect(statements.length).toBeGreaterThan(8);
    // One session: a prepared statement is the session's.
    await database.db.transaction().execute(async (tx) => {
      for (const [i, s] of statements.entries()) await sql.raw(`PREPARE agentrun_check_${i} AS ${s.text}`).execute(tx);
      const { rows } = await sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'agentrun_check_%'`.execute(tx);
      expect(rows).toEqual([{ n: statements.length }]);
      await sql`DEALLOCATE ALL`.execute(tx);
    });
  });
});
