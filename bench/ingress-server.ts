import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { agentrunExpress } from '@agentrun/adapter-express';
import { agentrunFastify } from '@agentrun/adapter-fastify';
import { createAgentRunHandler, createApiKey, type Store } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import { createPostgresStore } from '@agentrun/store-postgres';
import express from 'express';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { peerServer } from './ingress-peer.js';

/**
 * One server of the `ingress` bench, in a process of its own so that autocannon (in the parent)
 * does not share its event loop. Started by bench/ingress.ts with the variant as argument; answers
 * over IPC with the port and the delivery targets, then serves until killed.
 */

export type IngressVariant =
  | 'fastify-bare'
  | 'fastify-agentrun'
  | 'express-bare'
  | 'express-agentrun'
  | 'fastify-postgres'
  | 'fastify-pg-insert'
  | 'fastify-peer';

/**
 * `fastify-postgres` (the `postgres` bench group): the PostgreSQL store on the connection string in
 * this variable, its tables in the scratch schema INGRESS_PG_SCHEMA (the store's `schema` option;
 * migrated, so created, here; the parent drops it), with a pool of INGRESS_PG_POOL connections.
 */
export const PG_URL_ENV = 'INGRESS_PG_URL';
export const PG_SCHEMA_ENV = 'INGRESS_PG_SCHEMA';
export const PG_POOL_ENV = 'INGRESS_PG_POOL';
/** `0`: the PostgreSQL server's evaluator stays off, so the bench measures the accept alone. */
export const PG_EVALUATE_ENV = 'PG_INGRESS_EVALUATE';
/**
 * The automations of each factory on PostgreSQL: FILTERS[2..5], a few rather than ten, 2 of which
 * match a bench delivery (2 runs started per delivery).
 */
export const PG_FILTERS = [2, 6] as const;
export const PG_FACTORIES = 5;

export interface IngressTarget {
  path: string;
  /** The bearer header of a token webhook (empty for a signed one). */
  authorization: string;
  /** A Standard Webhooks webhook's secret (`whsec_…`): the load generator signs each delivery with it. */
  secret?: string;
}

export interface IngressServerReady {
  port: number;
  targets: IngressTarget[];
  automations: number;
}

/**
 * Statements this process has sent to PostgreSQL (every `pg` client's `query`, the pool's included):
 * the parent asks with the IPC message `stats` (bench/postgres-ingress.ts, where the time goes).
 */
let statements = 0;
function countStatements(): void {
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    statements++;
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
}

/** 50 factories × 20 webhooks (the default per-factory maximum) = 1,000 webhooks. */
export const FACTORIES = 50;
export const WEBHOOKS_PER_FACTORY = 20;

/**
 * The 10 automations of each factory, each selecting all 20 of its webhooks: 4 match a bench
 * delivery (2 without a filter, 2 with a filter that holds), 6 have a filter that does not hold.
 */
export const FILTERS: (Record<string, unknown> | undefined)[] = [
  undefined,
  undefined,
  { action: ['opened', 'synchronize'], pull_request: { base: { ref: ['main'] }, draft: [false] } },
  { repository: { full_name: { not_in: ['acme/legacy'] } }, sender: { type: ['User'] } },
  { action: ['closed'] },
  { pull_request: { base: { ref: ['release'] } } },
  { pull_request: { draft: [true] } },
  { repository: { full_name: ['acme/legacy'] } },
  { sender: { type: ['Bot'] } },
  { action: ['labeled'], label: { name: ['agent'] } },
];

/** The agentrun handler of the bench, with its factories, webhooks and automations made through the management API. */
export async function agentrunHandler(
  postgres = false,
  // The telemetry bench (ingress-telemetry.ts) passes core at another commit, or OpenTelemetry providers.
  create: (options: Parameters<typeof createAgentRunHandler>[0]) => ReturnType<typeof createAgentRunHandler> = createAgentRunHandler,
  extra: Partial<Parameters<typeof createAgentRunHandler>[0]> = {},
) {
  // The telemetry bench's baseline brings the memory store of its own commit.
  let store: Store = extra.store ?? createMemoryStore();
  if (postgres) {
    const connectionString = process.env[PG_URL_ENV];
    const schema = process.env[PG_SCHEMA_ENV];
    if (!connectionString || !schema) throw new Error(`${PG_URL_ENV} and ${PG_SCHEMA_ENV} must be set`);
    const pg = createPostgresStore({ connectionString, schema, poolSize: Number(process.env[PG_POOL_ENV] ?? 10) });
    await pg.migrate();
    store = pg;
  }
  const filters = postgres ? FILTERS.slice(...PG_FILTERS) : FILTERS;
  const factories = postgres ? PG_FACTORIES : FACTORIES;
  const handler = create({
    ...extra,
    store,
    secretKey: randomBytes(32),
    // 1,000 webhooks spread the load; the per-webhook rate limit is lifted on top, since one bench
    // run sends a few hundred deliveries a minute to each.
    ingressLimits: { deliveriesPerWindow: 1e9 },
    onError: (error) => console.error('[ingress bench]', error),
  });
  const key = await createApiKey(store.apiKeys, testPrincipal({ team_uid: 'bench-team' }));
  const call = async <T>(method: string, path: string, body: unknown): Promise<T> => {
    const res = await handler(
      new Request(`http://bench.local/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as T;
  };
  const targets: IngressTarget[] = [];
  let automations = 0;
  for (let f = 0; f < factories; f++) {
    const factory = (await call<{ uid: string }>('POST', '/factories', { name: `Factory ${f}` })).uid;
    const uids: string[] = [];
    for (let w = 0; w < WEBHOOKS_PER_FACTORY; w++) {
      // On PostgreSQL the deliveries are signed (Standard Webhooks), as the peer's are (ingress-peer.ts).
      const created = await call<{ webhook: { uid: string }; secret: string }>('POST', `/factories/${factory}/webhooks`, {
        name: `CI ${w}`,
        ...(postgres ? { auth_mode: 'signature', signature_scheme: 'standard-webhooks' } : {}),
      });
      uids.push(created.webhook.uid);
      const path = `/webhooks/w/${created.webhook.uid}`;
      targets.push(postgres ? { path, authorization: '', secret: created.secret } : { path, authorization: `Bearer ${created.secret}` });
    }
    for (const [i, payload] of filters.entries()) {
      await call('POST', `/factories/${factory}/automations`, {
        name: `Automation ${i}`,
        prompt: 'Review the pull request.',
        triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: uids, ...(payload ? { payload } : {}) } }],
      });
      automations++;
    }
  }
  // Accepted deliveries' runs are made after the 202 by the evaluator (docs/webhooks.md, "When runs
  // start"): it runs here, in the serving process, as it does beside a worker, so the figures count
  // evaluation keeping up with the accepts. PG_INGRESS_EVALUATE=0 leaves it off, to measure the
  // accept alone (bench/postgres-ingress.ts).
  if (!postgres || process.env[PG_EVALUATE_ENV] !== '0') evaluatorOf(handler)?.start();
  return { handler, targets, automations };
}

interface BenchEvaluator {
  start(): void;
  /** Closes the `start` above; the loop's timer would keep a bench process alive. */
  stop(): Promise<void>;
  drain(): Promise<number>;
}

/**
 * The evaluation of accepted deliveries (`handler.app.evaluator`), where the core under test has
 * it; `undefined` for a core at an older commit (the telemetry bench's baseline), whose accept
 * still creates the runs itself.
 */
export function evaluatorOf(handler: { app: object }): BenchEvaluator | undefined {
  return (handler.app as { evaluator?: BenchEvaluator }).evaluator;
}

const bareReply = () => ({ delivery_id: randomUUID() });

/**
 * Node's floor (bench/ingress-floor.ts): the bare route, plus pgbench's one-row INSERT of the body
 * through a pool of INGRESS_PG_POOL, into `floor_rows` of the scratch schema the parent made.
 */
function pgInsertRoute(app: FastifyInstance): void {
  const pool = new pg.Pool({ connectionString: process.env[PG_URL_ENV], max: Number(process.env[PG_POOL_ENV] ?? 10) });
  const insert = `INSERT INTO ${process.env[PG_SCHEMA_ENV]}.floor_rows (id, team_uid, payload, created_at) VALUES ($1, 'acme', $2, now())`;
  app.post('/webhooks/w/:uid', async (request, reply) => {
    if (typeof request.body !== 'object' || request.body === null) return reply.code(400).send();
    const id = randomUUID();
    await pool.query({ name: 'floor-insert', text: insert, values: [id, JSON.stringify(request.body)] });
    return reply.code(202).send({ delivery_id: id });
  });
}

async function start(variant: IngressVariant): Promise<IngressServerReady> {
  if (variant.startsWith('fastify-')) {
    const app = Fastify({ logger: false });
    let targets: IngressTarget[] = [{ path: '/webhooks/w/bare', authorization: 'Bearer bare' }];
    let automations = 0;
    if (variant === 'fastify-pg-insert') pgInsertRoute(app);
    else if (variant === 'fastify-peer') {
      ({ targets, automations } = await peerServer(app, {
        url: process.env[PG_URL_ENV] as string,
        schema: process.env[PG_SCHEMA_ENV] as string,
        connections: Number(process.env[PG_POOL_ENV] ?? 10),
        evaluate: process.env[PG_EVALUATE_ENV] !== '0',
        factories: PG_FACTORIES,
        webhooksPerFactory: WEBHOOKS_PER_FACTORY,
        filters: FILTERS.slice(...PG_FILTERS),
      }));
    } else if (variant === 'fastify-bare') {
      app.post('/webhooks/w/:uid', async (request, reply) => {
        if (typeof request.body !== 'object' || request.body === null) return reply.code(400).send();
        return reply.code(202).send(bareReply());
      });
    } else {
      const setup = await agentrunHandler(variant === 'fastify-postgres');
      ({ targets, automations } = setup);
      await app.register(agentrunFastify, { handler: setup.handler });
    }
    await app.listen({ host: '127.0.0.1', port: 0 });
    return { port: (app.server.address() as AddressInfo).port, targets, automations };
  }
  const app = express();
  let targets: IngressTarget[] = [{ path: '/webhooks/w/bare', authorization: 'Bearer bare' }];
  let automations = 0;
  if (variant === 'express-bare') {
    app.post('/webhooks/w/:uid', express.json({ limit: '256kb' }), (req, res) => {
      if (typeof req.body !== 'object' || req.body === null) return void res.status(400).end();
      res.status(202).json(bareReply());
    });
  } else {
    const setup = await agentrunHandler();
    ({ targets, automations } = setup);
    app.use(agentrunExpress(setup.handler));
  }
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  return { port: (server.address() as AddressInfo).port, targets, automations };
}

// A server only when forked by the bench (with an IPC channel): importing this module for its
// constants and types must not start one in the importing process.
if (process.send) {
  if (['fastify-postgres', 'fastify-peer', 'fastify-pg-insert'].includes(process.argv[2] as string)) countStatements();
  const ready = await start(process.argv[2] as IngressVariant);
  process.send(ready);
  // Exit normally (so that `--cpu-prof` writes its profile) when the parent says so or goes away.
  process.on('message', (message) => {
    if (message === 'stop') process.exit(0);
    if (message === 'stats') process.send?.({ statements });
  });
  process.on('disconnect', () => process.exit(0));
}
