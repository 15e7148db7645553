import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { filesystemBlobStore } from '@agentrun/blob-storage';
import { createSecretCipher } from '@agentrun/core/internal';
import { gitSources } from '@agentrun/git-sources';
import { createPostgresBlobStore, createPostgresStore, isUnavailableError } from '@agentrun/store-postgres';
import { type ChosenExecutor, executorFromEnvironment } from './agent-executor.js';
import { servePrometheusMetrics } from './prometheus.js';
import { resealCommand } from './reseal-command.js';
import { secretKeysFromEnv } from './secret-keys-env.js';
import { startReferenceServer } from './server.js';
import { waitForDatabase } from './wait-for-database.js';

// `npm start`: serve the run API on PORT with the memory store, a worker and the demo executor.
const port = Number(process.env.PORT ?? 8080);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number, got ${JSON.stringify(process.env.PORT)}`);
  process.exit(1);
}
// Optional knobs for fast runs in tests and demos: how long the demo executor works on a run, and
// how often the worker polls the store (other processes' new runs are only seen by polling).
const demoDurationMs = optionalMs('AGENTRUN_DEMO_DURATION_MS');
const pollIntervalMs = optionalMs('AGENTRUN_POLL_INTERVAL_MS');
// How long an evaluation claim holds before another process may take the deliveries (docs/webhooks.md).
const evaluationLeaseMs = optionalMs('AGENTRUN_EVALUATION_LEASE_MS');
// How often factory sources are fetched, the fallback to push notifications (docs/repositories.md).
const sourcePollIntervalMs = optionalMs('AGENTRUN_SOURCE_POLL_INTERVAL_MS');
// On SIGTERM or SIGINT, how long running executions may take to finish before they are handed
// back to the queue (docs/executors.md, "Stopping a worker"). A second signal exits at once.
const shutdownGraceMs = optionalMs('AGENTRUN_SHUTDOWN_GRACE_MS') ?? 10_000;
// The git layer, its cache in AGENTRUN_GIT_CACHE_DIR (docs/repositories.md, "The git layer"): skills
// are read from the team's registered repositories with it, and the process executor checks an
// environment's repositories out of the same cache. Remote URLs only, unless
// AGENTRUN_GIT_ALLOW_LOCAL_PATHS=1 lets teams name repositories on this host's disk (docs/repositories.md, "URLs").
const git = gitSources({
  ...(process.env.AGENTRUN_GIT_CACHE_DIR ? { cacheDir: process.env.AGENTRUN_GIT_CACHE_DIR } : {}),
  allowLocalPaths: process.env.AGENTRUN_GIT_ALLOW_LOCAL_PATHS === '1',
});
// The demo executor unless AGENTRUN_EXECUTOR=process, which runs AGENTRUN_AGENT_COMMAND per run.
const chosen = chooseExecutor();
// Postgres when DATABASE_URL is set (migrated at start; safe when several servers start at once),
// its tables in the schema AGENTRUN_DB_SCHEMA (default agentrun; docs/production.md).
const databaseUrl = process.env.DATABASE_URL;
const store = databaseUrl ? postgresStore(databaseUrl, process.env.AGENTRUN_DB_SCHEMA || undefined) : undefined;
// A database that is not up yet is waited for (an outage, not a misconfiguration: see wait-for-database.ts).
if (store) await waitForDatabase(() => store.migrate(), isUnavailableError);

// Team secrets are sealed with AGENTRUN_SECRET_KEY. Without one, the memory store gets a key for
// this process only (its data dies with it anyway); Postgres gets none, so that secrets are never
// sealed with a key that is lost at restart: storing one answers 503 and says why. A comma-separated
// list rotates keys: the first seals, all open (docs/operations.md, "Rotating the secret key").
const secretKey = configuredSecretKey() ?? (store ? undefined : randomBytes(32));
// `npm start -- reseal-secrets`: re-seal every secret with the first key, print the counts, exit.
if (process.argv[2] === 'reseal-secrets') {
  if (!store) console.error('reseal-secrets needs DATABASE_URL: the memory store lives only inside a running server');
  process.exit(store ? await resealCommand(store, configuredSecretKey()).finally(() => store.close()) : 1);
}

// AGENTRUN_METRICS_PORT: Prometheus metrics on a port of their own (prometheus.ts), registered before the server is made.
const metricsPort = process.env.AGENTRUN_METRICS_PORT ? Number(process.env.AGENTRUN_METRICS_PORT) : undefined;
if (metricsPort !== undefined && (!Number.isInteger(metricsPort) || metricsPort < 0 || metricsPort > 65535)) {
  console.error(`AGENTRUN_METRICS_PORT must be a port number, got ${JSON.stringify(process.env.AGENTRUN_METRICS_PORT)}`);
  process.exit(1);
}
const prometheus = metricsPort === undefined ? undefined : await servePrometheusMetrics(metricsPort, process.env.HOST ?? '0.0.0.0');

const server = await startReferenceServer({
  ...(secretKey !== undefined ? { secretKey } : {}),
  // Where people reach this server (runs' session_link, ingress URLs); default http://localhost:PORT.
  ...(process.env.AGENTRUN_PUBLIC_URL ? { publicBaseUrl: process.env.AGENTRUN_PUBLIC_URL } : {}),
  ...(process.env.WEBHOOK_BASE_URL ? { webhookBaseUrl: process.env.WEBHOOK_BASE_URL } : {}),
  ...(store ? { store } : {}),
  // Artifacts' bytes (docs/artifacts.md): files under AGENTRUN_BLOB_DIR, else the database, else memory.
  ...(process.env.AGENTRUN_BLOB_DIR
    ? { blobs: filesystemBlobStore({ directory: process.env.AGENTRUN_BLOB_DIR }) }
    : store
      ? { blobs: createPostgresBlobStore(store) }
      : {}),
  ...(chosen.executor ? { executor: chosen.executor } : {}),
  port,
  host: process.env.HOST ?? '0.0.0.0',
  ...(process.env.AGENTRUN_API_KEY ? { apiKey: process.env.AGENTRUN_API_KEY } : {}),
  ...(demoDurationMs !== undefined ? { demoDurationMs } : {}),
  ...(pollIntervalMs !== undefined ? { pollIntervalMs } : {}),
  ...(sourcePollIntervalMs !== undefined ? { sourcePollIntervalMs } : {}),
  ...(evaluationLeaseMs !== undefined ? { evaluationLeaseMs } : {}),
  repositories: git,
  callbacks: callbackOptions(),
});
// The address actually bound (HOST, default 0.0.0.0: every interface), and where to reach it here.
const shown = server.url.replace(/\/\/(0\.0\.0\.0|\[::\])(?=:)/, '//localhost');
console.log(
  `agentrun reference server listening on ${server.url}${shown !== server.url ? ` (all interfaces; from this machine: ${shown})` : ''}`,
);
console.log(`  run API:  ${shown}/api/v1  (store: ${store ? `postgres, schema ${store.schema}` : 'memory'}, executor: ${chosen.name})`);
console.log(`  dashboard: ${shown}/dashboard`);
if (prometheus) console.log(`  metrics:  ${prometheus.url} (Prometheus)`);
console.log(
  `  API key:  ${server.apiKey}${process.env.AGENTRUN_API_KEY ? ' (from AGENTRUN_API_KEY)' : ' (generated; set AGENTRUN_API_KEY to fix it)'}`,
);
if (!secretKey) console.log('  secrets:  disabled (set AGENTRUN_SECRET_KEY, e.g. from `openssl rand -base64 32`)');
else if (!process.env.AGENTRUN_SECRET_KEY)
  console.log('  secrets:  sealed with a key for this process only (set AGENTRUN_SECRET_KEY to keep one)');
else {
  // Key ids, never keys: what to compare across processes during a rotation (docs/operations.md).
  const [sealing, ...opening] = await createSecretCipher(secretKey).keyIds();
  console.log(`  secrets:  sealed with key ${sealing}${opening.length ? `; also opens ${opening.join(', ')}` : ''}`);
}
console.log(`  try:      curl -s -H "Authorization: Bearer ${server.apiKey}" -d '{"prompt":"hello"}' ${shown}/api/v1/agent/run`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log(`stopping: running executions have ${shutdownGraceMs} ms to finish (a second ${signal} exits now)…`);
    // shutdownGracefully (docs/operations.md, "Graceful shutdown"): 5 s more for requests in flight and the hand-back.
    void server.close({ graceMs: shutdownGraceMs, timeoutMs: shutdownGraceMs + 5_000 }).then(() => process.exit(0));
  });
}

/**
 * Run-state callbacks (docs/callbacks.md, "Options"): every name a callback URL holds is resolved
 * and checked before sending; AGENTRUN_CALLBACKS_ALLOW_PRIVATE=1 lets callbacks reach private
 * addresses (local use, tests); the retry knobs are for tests and demos.
 */
function callbackOptions() {
  const baseDelayMs = optionalMs('AGENTRUN_CALLBACK_BASE_DELAY_MS');
  const timeoutMs = optionalMs('AGENTRUN_CALLBACK_TIMEOUT_MS');
  return {
    resolve: async (hostname: string) => (await lookup(hostname, { all: true })).map((a) => a.address),
    allowPrivateAddresses: process.env.AGENTRUN_CALLBACKS_ALLOW_PRIVATE === '1',
    policy: { ...(baseDelayMs !== undefined ? { baseDelayMs } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}) },
  };
}

/** The store, or the process ends with one line saying what is wrong with AGENTRUN_DB_SCHEMA. */
function postgresStore(connectionString: string, schema: string | undefined) {
  try {
    return createPostgresStore({ connectionString, ...(schema !== undefined ? { schema } : {}) });
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    console.error(`AGENTRUN_DB_SCHEMA: ${error.message}`);
    process.exit(1);
  }
}

/** AGENTRUN_SECRET_KEY as one key or a list, or the process ends with one line saying what is wrong. */
function configuredSecretKey() {
  try {
    return secretKeysFromEnv(process.env.AGENTRUN_SECRET_KEY);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}

/** The executor the environment asks for, or the process ends with one line saying which variable is wrong. */
function chooseExecutor(): ChosenExecutor {
  try {
    return executorFromEnvironment(process.env, { repositories: git });
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}

function optionalMs(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value === '') return undefined;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 1) {
    console.error(`${name} must be a whole number of milliseconds, got ${JSON.stringify(value)}`);
    process.exit(1);
  }
  return ms;
}
