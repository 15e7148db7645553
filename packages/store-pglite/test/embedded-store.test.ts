import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirectoryInUseError, openEmbeddedStore } from '../src/index.js';
import { expectKept, writeKeptData } from './support/kept-data.js';

// openEmbeddedStore in one process: the data directory it makes, its refusal of a second store on
// it, what it keeps across a close. A holder in another process, killed, is processes.test.ts's.

const root = mkdtempSync(join(tmpdir(), 'agentrun-embedded-'));
/** A new data directory's first open makes the cluster (initdb): seconds, many on a busy machine. */
const OPENS = { timeout: 120_000 };
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('openEmbeddedStore', () => {
  it('refuses options it cannot use before touching the disk', async () => {
    await expect(openEmbeddedStore({ dataDir: '' })).rejects.toThrow(
      new TypeError('openEmbeddedStore: dataDir must be a directory path, got ""'),
    );
    await expect(openEmbeddedStore({} as { dataDir: string })).rejects.toThrow(TypeError);
    const dataDir = join(root, 'never');
    await expect(openEmbeddedStore({ dataDir, schema: 'Not Plain' })).rejects.toThrow(
      /^openEmbeddedStore: schema must be a plain SQL identifier/,
    );
    expect(existsSync(dataDir)).toBe(false);
  });

  it('makes the data directory, holds it while open, and keeps what was written across a close', OPENS, async () => {
    const dataDir = join(root, 'missing', 'parents', '.agentrun');
    const store = await openEmbeddedStore({ dataDir, schema: 'kept' });
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dataDir).sort()).toEqual(['lock', 'pgdata']);
    expect(existsSync(join(dataDir, 'pgdata', 'PG_VERSION'))).toBe(true);
    expect(store.schema).toBe('kept');
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'kept'`.execute(store.db);
    expect(rows[0]?.n).toBeGreaterThan(10);

    const refused = await openEmbeddedStore({ dataDir }).catch((error) => error);
    expect(refused).toBeInstanceOf(DataDirectoryInUseError);
    expect(refused.message).toMatch(new RegExp(`^${dataDir} is in use by this process \\(pid ${process.pid}`));

    const kept = await writeKeptData(store);
    await store.close();
    await store.close();
    expect(readdirSync(join(dataDir, 'lock'))).toEqual([]);

    const reopened = await openEmbeddedStore({ dataDir, schema: 'kept' });
    try {
      await expectKept(reopened, kept);
      expect(await reopened.checkReady?.()).toEqual({ pendingMigrations: [] });
    } finally {
      await reopened.close();
    }
  });
});
