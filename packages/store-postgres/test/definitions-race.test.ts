import { createAgentRunHandler } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { openTestDatabase } from './support/database.js';

// An interleaving forced instead of waited for: an apply commits while
// another apply is reading the factory to plan on. The conformance test "two concurrent applies
// never half-apply" met it by chance, as a 400 refusing webhooks/github.yaml as a rename of itself:
// the planner had read the factory's definition set from before the other apply and its webhooks
// from after it. docs/definitions.md, "Two applies at once", says the later apply is planned
// again; that holds only if what a plan reads is all of one version (definitions.snapshot).
const database = await openTestDatabase('definitions_race');
afterAll(() => database.close());
if (!database.multiConnection) console.warn('[definitions-race.test] skipped: needs a PostgreSQL server (two pools)');

/** A read of a table an apply plans on. */
const planRead = (schema: string) => new RegExp(`^\\s*SELECT\\b[\\s\\S]*\\bFROM "${schema}"\\."(definition_sets|webhooks|automations)"`);

/**
 * One connection (so reads run one after another, in the order they are asked for) whose next
 * read of a planned-on table, once `meanwhile` is given, answers only after `meanwhile` has run:
 * every later read on it comes after what `meanwhile` did.
 */
function pausingPool(pool: pg.Pool, schema: string) {
  const planned = planRead(schema);
  let meanwhile: (() => Promise<void>) | undefined;
  const wrap = (client: pg.PoolClient) =>
    ({
      async query(text: string, values: readonly unknown[]) {
        const result = await client.query(text, [...values]);
        const run = meanwhile;
        if (run && planned.test(text)) {
          meanwhile = undefined;
          await run();
        }
        return result;
      },
      release: () => client.release(),
    }) as unknown as PostgresPoolClient;
  const pausing: PostgresPool = { connect: async () => wrap(await pool.connect()), end: () => pool.end() };
  return {
    pool: pausing,
    afterNextRead(run: () => Promise<void>) {
      meanwhile = run;
    },
    /** Whether the read it waited for came (else the test proved nothing). */
    get waiting() {
      return meanwhile !== undefined;
    },
  };
}

describe.skipIf(!database.multiConnection)('an apply committing while another reads the factory to plan on', () => {
  it('the reader plans on one version: planned again after the write, it applies; never a 400, never a mix', async () => {
    const principal = testPrincipal({ uid: 'race-user', team_uid: 'race-team' });
    const options = { secretKey: new Uint8Array(32), authenticate: async () => principal };
    const other = createAgentRunHandler({ ...options, store: await database.freshStore() });
    const paused = pausingPool((database.newPool as NonNullable<typeof database.newPool>)(1), database.schema);
    const db = new Kysely({ dialect: new PostgresDialect({ pool: paused.pool }) });
    const reader = createAgentRunHandler({ ...options, store: createPostgresStore({ db, schema: database.schema }) });
    try {
      const send = async (handler: typeof other, method: string, path: string, body: unknown) => {
        const res = await handler(
          new Request(`http://agentrun.test/api/v1${path}`, {
            method,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          }),
        );
        return { status: res.status, body: await res.json() };
      };
      const factory = (await send(other, 'POST', '/factories', { name: 'race' })).body.uid as string;
      for (const name of ['github-token', 'other-token']) await send(other, 'PUT', `/team/secrets/${name}`, { value: `${name}-value` });

      const github = { name: 'github', auth_mode: 'token', secret_name: 'github-token' };
      const first = { webhooks: [github, { name: 'b', secret_name: 'github-token' }], prune: true };
      const second = { webhooks: [github, { name: 'a', secret_name: 'other-token' }], prune: true };
      let meanwhile: { status: number; body: { version?: number } } | undefined;
      paused.afterNextRead(async () => {
        meanwhile = await send(other, 'POST', `/factories/${factory}/apply`, first);
      });
      const answer = await send(reader, 'POST', `/factories/${factory}/apply`, second);

      expect(paused.waiting, 'the apply never read a planned-on table through the pausing pool').toBe(false);
      expect(meanwhile).toMatchObject({ status: 200, body: { applied: true, version: 1 } });
      // Planned first on the factory before `first`, refused as stale, planned again on `first`'s.
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body).toMatchObject({ applied: true, version: 2 });
      expect(answer.body.webhooks.map((w: { name: string; action: string }) => [w.name, w.action])).toEqual([
        ['github', 'unchanged'],
        ['a', 'create'],
        ['b', 'delete'],
      ]);
      const listed = await send(other, 'GET', `/factories/${factory}/webhooks`, undefined);
      expect(listed.body.webhooks.map((w: { name: string }) => w.name).sort()).toEqual(['a', 'github']);
    } finally {
      await db.destroy();
    }
  });
});
