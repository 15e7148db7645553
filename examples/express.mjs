// server.mjs: agentrun inside an Express app, an ES module (top-level await): `node server.mjs`.
//   npm install express ./vendor/agentrun-*.tgz   # the packages packed in a clone (README, "Embed it")
//   AGENTRUN_SECRET_KEY=$(openssl rand -base64 32) node server.mjs
import { agentrunExpress, shutdownGracefully } from '@agentrun/adapter-express';
import { createAgentRun, createApiKey, demoExecutor } from '@agentrun/core';
import { createDashboard } from '@agentrun/dashboard';
import { createMemoryStore } from '@agentrun/store-memory';
import express from 'express';

// 32 bytes that seal webhook secrets at rest; without it, creating a webhook answers 503.
const secretKey = process.env.AGENTRUN_SECRET_KEY;
if (!secretKey) throw new Error('set AGENTRUN_SECRET_KEY to 32 random bytes in base64: openssl rand -base64 32');

const port = Number(process.env.PORT ?? 3000);
const store = createMemoryStore();
// One composition root: the HTTP surface, the services and workers on one store. publicBaseUrl is
// where people reach it: a run's session_link opens the run in the dashboard mounted below.
const agentrun = createAgentRun({ store, secretKey, executor: demoExecutor(), publicBaseUrl: `http://localhost:${port}/agents` });
const worker = agentrun.worker(); // claims runs, runs the executor, and does the housekeeping

const app = express();
app.use('/agents', agentrunExpress(agentrun)); // before body parsers such as express.json()
app.use('/agents', agentrunExpress(createDashboard())); // the web UI at /agents/dashboard
app.use(express.json());
app.get('/hello', (_req, res) => res.send('ok')); // your routes keep working
// Probes for a load balancer or Kubernetes: /agents/healthz (alive) and /agents/readyz (store, worker).

// manage_factory lets this key create factories, webhooks and automations too.
const key = await createApiKey(store.apiKeys, { type: 'service_account', uid: 'ci', team_uid: 'acme', permissions: ['manage_factory'] });
const server = app.listen(port, () => {
  worker.start();
  console.log(`run API at http://localhost:${server.address().port}/agents/api/v1, key ${key}`);
  console.log(`dashboard at http://localhost:${server.address().port}/agents/dashboard`);
});
// On SIGTERM: no new connections, /agents/readyz 503, requests in flight and runs get 10 s, the rest is handed back.
process.once('SIGTERM', async () => {
  await shutdownGracefully({ agentrun, servers: [server], timeoutMs: 10_000 });
  process.exit(0);
});
