import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { describeSchema, migrate } from '../src/index.js';

/**
 * `npm run schema:dump -w @agentrun/store-postgres`: migrate a scratch schema and write its
 * description to schema.txt. Commit the result with every new migration; CI fails on drift.
 */
const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const schema = `schema_dump_${process.pid}`;
const admin = new pg.Client({ connectionString: url });
await admin.connect();
await admin.query(`CREATE SCHEMA ${schema}`);
try {
  const scoped = new URL(url);
  scoped.searchParams.set('options', `-c search_path=${schema}`);
  const db = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: scoped.toString(), max: 1 }) }) });
  try {
    await migrate(db);
    const target = fileURLToPath(new URL('../schema.txt', import.meta.url));
    await writeFile(target, await describeSchema(db));
    console.log(`wrote ${target}`);
  } finally {
    await db.destroy();
  }
} finally {
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  await admin.end();
}
