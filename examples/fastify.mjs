// server.mjs: agentrun inside a Fastify app, an ES module (top-level await): `node server.mjs`.
//   npm install fastify ./vendor/agentrun-*.tgz   # the packages packed in a clone (README, "Embed it")
//   AGENTRUN_SECRET_KEY=$(openssl rand -base64 32) node server.mjs
import { agentrunFastify, shutdownGracefully } from '@agentrun/adapter-fastify';
import { composeMounts, createAgentRun, createApiKey, demoExecutor } from '@agentrun/core';
import { createDashboard } from '@agentrun/dashboard';
import { createMemoryStore } from '@agentrun/store-memory';
import Fastify from 'fastify';

// 32 bytes that seal webhook secrets at rest; without it, creating a webhook answers 503.
const secretKey = process.env.AGENTRUN_SECRET_KEY;
if (!secretKey) throw new Error('set AGENTRUN_SECRET_KEY to 32 random bytes in base64: openssl rand -base64 32');

const port = Number(process.env.PORT ?? 3000);
const store = createMemoryStore();
// One composition root: the HTTP surface, the services and workers on one store. publicBaseUrl is
// where people reach it: a run's session_link opens the run in the dashboard mounted below.
const agentrun = createAgentRun({ store, secretKey, executor: demoExecutor(), publicBaseUrl: `http://localhost:${port}/agents` });
const worker = agentrun.worker(); // claims runs, runs the executor, and does the housekeeping

const app = Fastify({ logger: true }); // agentrun logs through each request's request.log
// One plugin per prefix: the API and the web UI (at /agents/dashboard) joined into one handler.
const handler = composeMounts([agentrun, createDashboard()], (request) => agentrun.fetch(request));
await app.register(agentrunFastify, { handler, prefix: '/agents' });
app.get('/hello', async () => 'ok'); // your routes and parsers are untouched
// Probes for a load balancer or Kubernetes: /agents/healthz (alive) and /agents/readyz (store, worker).

// manage_factory lets this key create factories, webhooks and automations too.
const key = await createApiKey(store.apiKeys, { type: 'service_account', uid: 'ci', team_uid: 'acme', permissions: ['manage_factory'] });
await app.listen({ port });
worker.start();
console.log(`run API at http://localhost:${app.server.address().port}/agents/api/v1, key ${key}`);
console.log(`dashboard at http://localhost:${app.server.address().port}/agents/dashboard`);
// On SIGTERM: no new connections, /agents/readyz 503, requests in flight and runs get 10 s, the rest is handed back.
process.once('SIGTERM', async () => {
  await shutdownGracefully({ agentrun, servers: [app.server], timeoutMs: 10_000 });
  process.exit(0);
});
