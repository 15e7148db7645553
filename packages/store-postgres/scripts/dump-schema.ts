import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { describeSchema, migrate } from '../src/index.js';

/**
 * `npm run schema:dump -w @agentrun/store-postgres`: migrate a scratch schema (the store's `schema`
 * option; the connection's search_path plays no part) and write its description to schema.txt.
 * Commit the result with every new migration; CI fails on drift.
 */
const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const schema = `schema_dump_${process.pid}`;
const db = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }) });
try {
  await migrate(db, { schema });
  const target = fileURLToPath(new URL('../schema.txt', import.meta.url));
  await writeFile(target, await describeSchema(db, { schema }));
  console.log(`wrote ${target}`);
} finally {
  await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(db);
  await db.destroy();
}
