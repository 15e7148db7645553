import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { compileFilter, type JsonValue, type PayloadMatcher } from '@agentrun/core/filter';
import type { FastifyInstance } from 'fastify';
import { Logger, type Runner, run as runGraphile, runMigrations } from 'graphile-worker';
import pg from 'pg';
import type { IngressTarget } from './ingress-server.js';

/**
 * The peer of `postgres-ingress` (bench/README.md, "postgres-ingress: the webhook ingress on
 * PostgreSQL"): the webhook ingress a competent team would write instead of adopting agentrun, on
 * the stack such a team reaches for.
 * Fastify; a Standard Webhooks signature check (node:crypto's HMAC and timingSafeEqual, the fastest
 * a team could pick; the webhook and its secret read per request, so a rotated secret applies at
 * once, as in agentrun); exact dedupe by `INSERT … ON CONFLICT DO NOTHING` on the message id; the
 * payload stored once, as its bytes; graphile-worker's `add_job` in the same statement, so the
 * delivery and its evaluation job commit together. A graphile-worker task, in the same process and
 * on the same pool, evaluates a delivery: it reads the delivery and its webhook's enabled
 * automations in one statement, matches agentrun's own filters (`@agentrun/core/filter`, each
 * compiled once), then in one statement marks the delivery evaluated with its run ids (only if it
 * was not yet, so a retried job starts nothing twice) and inserts the runs, QUEUED, into a table
 * whose partial index is the queue a worker would claim from (as agentrun's runs are; queued as
 * graphile-worker jobs instead, the runs no bench worker takes would pile up in the very table the
 * evaluation jobs are fetched from): what agentrun's evaluation does (the runs exist, queued for a
 * worker, and the log says what each delivery started), with nothing else of agentrun's (no rate
 * limit, no log of rejections, no stats, no run events or notifications, no secrets sealed at rest).
 *
 * The tables live in the bench's scratch schema, graphile-worker's in `<schema>_graphile`; both
 * are dropped by the parent. The same 100 webhooks in 5 factories, with the same 4 automations per
 * factory (2 of which match a bench delivery), as agentrun's side (ingress-server.ts).
 */

export const peerGraphileSchema = (schema: string) => `${schema}_graphile`;

/** Jobs graphile-worker runs at once: the best of 4, 8 and 16 on the bench machine, as many as the pool has connections. */
const CONCURRENCY = Number(process.env.PEER_CONCURRENCY ?? 16);

function tables(s: string): string {
  return `
    CREATE SCHEMA IF NOT EXISTS ${s};
    CREATE TABLE ${s}.peer_webhooks (uid text PRIMARY KEY, team_uid text NOT NULL, secret text NOT NULL);
    CREATE TABLE ${s}.peer_automations (id text PRIMARY KEY, team_uid text NOT NULL, webhook_uids text[] NOT NULL,
      filter jsonb NOT NULL, prompt text NOT NULL, enabled boolean NOT NULL DEFAULT true, created_at timestamptz NOT NULL DEFAULT now());
    CREATE INDEX ON ${s}.peer_automations USING gin (webhook_uids);
    CREATE TABLE ${s}.peer_deliveries (id text PRIMARY KEY, webhook_uid text NOT NULL, team_uid text NOT NULL, msg_id text NOT NULL,
      payload bytea NOT NULL, received_at timestamptz NOT NULL, evaluated_at timestamptz, run_ids text[]);
    CREATE UNIQUE INDEX ON ${s}.peer_deliveries (webhook_uid, msg_id);
    CREATE INDEX ON ${s}.peer_deliveries (webhook_uid, received_at DESC, id DESC);
    CREATE TABLE ${s}.peer_runs (id text PRIMARY KEY, team_uid text NOT NULL, automation_id text NOT NULL, delivery_id text NOT NULL,
      prompt text NOT NULL, state text NOT NULL, created_at timestamptz NOT NULL);
    CREATE INDEX ON ${s}.peer_runs (team_uid, created_at DESC, id DESC);
    CREATE INDEX ON ${s}.peer_runs (created_at, id) WHERE state = 'QUEUED';`;
}

function statements(s: string, gw: string) {
  return {
    webhook: `SELECT team_uid, secret FROM ${s}.peer_webhooks WHERE uid = $1`,
    accept: `
      WITH ins AS (
        INSERT INTO ${s}.peer_deliveries (id, webhook_uid, team_uid, msg_id, payload, received_at)
        VALUES ($1, $2, $3, $4, $5, now()) ON CONFLICT (webhook_uid, msg_id) DO NOTHING RETURNING id
      )
      SELECT ins.id FROM ins, LATERAL ${gw}.add_job('evaluate', json_build_object('delivery_id', ins.id)) j`,
    read: `
      SELECT d.payload, d.evaluated_at IS NOT NULL AS evaluated,
        coalesce((SELECT jsonb_agg(jsonb_build_object('id', a.id, 'filter', a.filter, 'prompt', a.prompt) ORDER BY a.created_at, a.id)
          FROM ${s}.peer_automations a WHERE a.enabled AND a.webhook_uids @> ARRAY[d.webhook_uid]), '[]'::jsonb) AS automations
      FROM ${s}.peer_deliveries d WHERE d.id = $1`,
    complete: `
      WITH done AS (
        UPDATE ${s}.peer_deliveries SET evaluated_at = now(), run_ids = $2::text[] WHERE id = $1 AND evaluated_at IS NULL
        RETURNING id, team_uid
      )
      INSERT INTO ${s}.peer_runs (id, team_uid, automation_id, delivery_id, prompt, state, created_at)
      SELECT r.id, done.team_uid, r.automation_id, done.id, r.prompt, 'QUEUED', now()
      FROM done CROSS JOIN unnest($2::text[], $3::text[], $4::text[]) AS r (id, automation_id, prompt)`,
  };
}

/** Make the peer's webhooks and automations: `factories` × `webhooksPerFactory`, each factory's automations over all its webhooks. */
async function seed(
  pool: pg.Pool,
  s: string,
  factories: number,
  webhooksPerFactory: number,
  filters: readonly (Record<string, unknown> | undefined)[],
): Promise<{ targets: IngressTarget[]; automations: number }> {
  await pool.query(tables(s));
  const targets: IngressTarget[] = [];
  let automations = 0;
  for (let f = 0; f < factories; f++) {
    const uids: string[] = [];
    for (let w = 0; w < webhooksPerFactory; w++) {
      const uid = `peer${f}x${w}`;
      const secret = `whsec_${randomBytes(24).toString('base64')}`;
      await pool.query(`INSERT INTO ${s}.peer_webhooks (uid, team_uid, secret) VALUES ($1, 'bench-team', $2)`, [uid, secret]);
      uids.push(uid);
      targets.push({ path: `/webhooks/w/${uid}`, authorization: '', secret });
    }
    for (const [i, filter] of filters.entries()) {
      await pool.query(
        `INSERT INTO ${s}.peer_automations (id, team_uid, webhook_uids, filter, prompt, created_at)
         VALUES ($1, 'bench-team', $2, $3, 'Review the pull request.', now() + $4 * interval '1 ms')`,
        [`auto${f}x${i}`, uids, JSON.stringify(filter ?? {}), i],
      );
      automations++;
    }
  }
  return { targets, automations };
}

/**
 * The message id a Standard Webhooks delivery's signature covers, or `undefined` when its headers
 * do not verify with `secret` (`whsec_<base64>`) within five minutes of now.
 */
function verifiedId(secret: string, headers: IncomingHttpHeaders, body: Buffer): string | undefined {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signature = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signature !== 'string') return undefined;
  const seconds = Number(timestamp);
  if (!Number.isInteger(seconds) || Math.abs(Date.now() / 1000 - seconds) > 300) return undefined;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
  for (const entry of signature.split(' ')) {
    if (!entry.startsWith('v1,')) continue;
    const given = Buffer.from(entry.slice(3), 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return id;
  }
  return undefined;
}

const silent = new Logger(() => () => {});

interface PeerAutomation {
  id: string;
  filter: Record<string, unknown>;
  prompt: string;
}

/**
 * The peer on `app`: its route, its tables and rows in `schema` of the database at `url`, and its
 * graphile-worker runner (started unless `evaluate` is false). `connections` is the route's pool;
 * the runner shares it, with one more for its LISTEN.
 */
export async function peerServer(
  app: FastifyInstance,
  options: {
    url: string;
    schema: string;
    connections: number;
    evaluate: boolean;
    factories: number;
    webhooksPerFactory: number;
    filters: readonly (Record<string, unknown> | undefined)[];
  },
): Promise<{ targets: IngressTarget[]; automations: number }> {
  const { schema: s } = options;
  const gw = peerGraphileSchema(s);
  const pool = new pg.Pool({ connectionString: options.url, max: options.connections + 1 });
  const seeded = await seed(pool, s, options.factories, options.webhooksPerFactory, options.filters);
  const sql = statements(s, gw);

  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.post('/webhooks/w/:uid', async (request, reply) => {
    const { uid } = request.params as { uid: string };
    const body = request.body as Buffer;
    const { rows } = await pool.query<{ team_uid: string; secret: string }>({ name: 'peer-webhook', text: sql.webhook, values: [uid] });
    const webhook = rows[0];
    if (!webhook) return reply.code(404).send({ error: 'no such webhook' });
    const id = verifiedId(webhook.secret, request.headers, body);
    if (id === undefined) return reply.code(401).send({ error: 'signature does not verify' });
    try {
      JSON.parse(body.toString('utf8'));
    } catch {
      return reply.code(400).send({ error: 'body is not JSON' });
    }
    const deliveryId = randomUUID();
    const accepted = await pool.query({ name: 'peer-accept', text: sql.accept, values: [deliveryId, uid, webhook.team_uid, id, body] });
    return reply.code(202).send(accepted.rows.length > 0 ? { delivery_id: deliveryId } : { duplicate: true });
  });

  const matchers = new Map<string, PayloadMatcher>();
  const matcherOf = (a: PeerAutomation) => {
    const key = `${a.id}\u0000${JSON.stringify(a.filter)}`;
    let matcher = matchers.get(key);
    if (!matcher) {
      matcher = compileFilter(a.filter);
      matchers.set(key, matcher);
    }
    return matcher;
  };
  await runMigrations({ pgPool: pool, schema: gw, logger: silent });
  const runner: Runner | undefined = options.evaluate
    ? await runGraphile({
        pgPool: pool,
        schema: gw,
        concurrency: CONCURRENCY,
        noHandleSignals: true,
        logger: silent,
        taskList: {
          evaluate: async (payload, helpers) => {
            const { delivery_id } = payload as { delivery_id: string };
            await helpers.withPgClient(async (client) => {
              const { rows } = await client.query<{ payload: Buffer; evaluated: boolean; automations: PeerAutomation[] }>({
                name: 'peer-read',
                text: sql.read,
                values: [delivery_id],
              });
              const delivery = rows[0];
              if (!delivery || delivery.evaluated) return;
              const event = JSON.parse(delivery.payload.toString('utf8')) as JsonValue;
              const matched = delivery.automations.filter((a) => matcherOf(a)(event));
              const ids = matched.map(() => randomUUID());
              await client.query({
                name: 'peer-complete',
                text: sql.complete,
                values: [delivery_id, ids, matched.map((a) => a.id), matched.map((a) => a.prompt)],
              });
            });
          },
        },
      })
    : undefined;
  app.addHook('onClose', async () => {
    await runner?.stop();
    await pool.end();
  });
  return seeded;
}
