import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { gitSources } from '@agentrun/git-sources';
import { DataDirectoryInUseError } from '@agentrun/store-pglite';
import { executorFromSettings } from './agent-executor.js';
import type { BootstrapKey } from './bootstrap-key.js';
import { openServerStore } from './open-store.js';
import { servePrometheusMetrics } from './prometheus.js';
import { readSettings, SettingError } from './read-settings.js';
import { resealCommand } from './reseal-command.js';
import { startReferenceServer } from './server.js';
import { serverSecretKey } from './server-secret-key.js';
import type { Settings } from './settings.js';
import { settingsHelp } from './settings-docs.js';
import { startWorkerProcess } from './worker-process.js';

// `npm start` (docs/server.md): the reference server on PORT with the store the settings choose,
// a worker and the demo executor (or the process executor). `npm start -- --help` lists the
// settings; `npm start -- reseal-secrets` re-seals the store's secrets and exits; `npm start --
// worker` runs a worker alone, for a worker host (docs/operations.md, "Worker hosts").
const command = process.argv[2];
if (command === '--help' || command === '-h') {
  process.stdout.write(settingsHelp());
  process.exit(0);
}
if (command !== undefined && command !== 'reseal-secrets' && command !== 'worker') {
  console.error(`unknown argument ${JSON.stringify(command)}: npm start [-- worker | reseal-secrets | --help]`);
  process.exit(2);
}

try {
  await start(readSettings(process.env));
} catch (error) {
  // A setting that is wrong: one line naming it, exit code 2 (docs/server.md). A data directory
  // another server holds: one line saying which, exit code 1.
  if (!(error instanceof SettingError || error instanceof DataDirectoryInUseError)) throw error;
  console.error(error.message);
  process.exit(error instanceof SettingError ? 2 : 1);
}

async function start(settings: Settings): Promise<void> {
  // The git layer (docs/repositories.md, "The git layer"): skills are read from the team's
  // registered repositories with it, and the process executor checks an environment's
  // repositories out of the same cache.
  const git = gitSources({
    ...(settings.AGENTRUN_GIT_CACHE_DIR !== undefined ? { cacheDir: settings.AGENTRUN_GIT_CACHE_DIR } : {}),
    allowLocalPaths: settings.AGENTRUN_GIT_ALLOW_LOCAL_PATHS,
  });
  const chosen = executorFromSettings(settings, { repositories: git });
  const opened = await openServerStore(settings);
  const secret = await serverSecretKey(settings.AGENTRUN_SECRET_KEY, opened);

  if (command === 'reseal-secrets') {
    if (opened.kind === 'memory')
      throw new SettingError('AGENTRUN_STORE', 'reseal-secrets needs a durable store: the memory store lives only inside a running server');
    process.exit(await resealCommand(opened.store, secret.key).finally(() => opened.store.close?.()));
  }

  // A worker alone is of use only beside API processes on one PostgreSQL server (docs/operations.md, "Worker hosts").
  if (command === 'worker' && opened.kind !== 'postgres') {
    await opened.store.close?.();
    throw new SettingError('DATABASE_URL', 'npm start -- worker needs the PostgreSQL store the API processes share: set DATABASE_URL');
  }

  // Prometheus metrics on a port of their own (prometheus.ts), registered before the server is made.
  const metricsPort = settings.AGENTRUN_METRICS_PORT;
  const prometheus = metricsPort === undefined ? undefined : await servePrometheusMetrics(metricsPort, settings.HOST);

  // What the server and a worker process alike are made with.
  const common = {
    store: opened.store,
    ...(opened.blobs ? { blobs: opened.blobs } : {}),
    ...(chosen.executor ? { executor: chosen.executor } : {}),
    ...(secret.key !== undefined ? { secretKey: secret.key } : {}),
    port: settings.PORT,
    host: settings.HOST,
    ...(settings.AGENTRUN_DEMO_DURATION_MS !== undefined ? { demoDurationMs: settings.AGENTRUN_DEMO_DURATION_MS } : {}),
    ...(settings.AGENTRUN_POLL_INTERVAL_MS !== undefined ? { pollIntervalMs: settings.AGENTRUN_POLL_INTERVAL_MS } : {}),
    ...(settings.AGENTRUN_EVALUATION_LEASE_MS !== undefined ? { evaluationLeaseMs: settings.AGENTRUN_EVALUATION_LEASE_MS } : {}),
    repositories: git,
    callbacks: callbackOptions(settings),
    worker: {
      host: settings.AGENTRUN_WORKER_HOST ?? hostname(),
      unrouted: settings.AGENTRUN_WORKER_UNROUTED,
      ...(settings.AGENTRUN_WORKER_CONCURRENCY !== undefined ? { concurrency: settings.AGENTRUN_WORKER_CONCURRENCY } : {}),
      executorName: chosen.name,
    },
  };

  if (command === 'worker') {
    const running = await startWorkerProcess({
      ...common,
      ...(settings.AGENTRUN_PUBLIC_URL !== undefined ? { publicBaseUrl: settings.AGENTRUN_PUBLIC_URL } : {}),
    });
    console.log(`agentrun worker on host ${JSON.stringify(common.worker.host)} (store: ${opened.description}, executor: ${chosen.name})`);
    console.log(`  probes:   ${running.url}/healthz, ${running.url}/readyz`);
    if (prometheus) console.log(`  metrics:  ${prometheus.url} (Prometheus)`);
    stopOnSignals(settings.AGENTRUN_SHUTDOWN_GRACE_MS, running);
    return;
  }

  const server = await startReferenceServer({
    ...common,
    ...(settings.AGENTRUN_PUBLIC_URL !== undefined ? { publicBaseUrl: settings.AGENTRUN_PUBLIC_URL } : {}),
    ...(settings.WEBHOOK_BASE_URL !== undefined ? { webhookBaseUrl: settings.WEBHOOK_BASE_URL } : {}),
    ...(settings.AGENTRUN_API_KEY !== undefined ? { apiKey: settings.AGENTRUN_API_KEY } : {}),
    ...(settings.AGENTRUN_SOURCE_POLL_INTERVAL_MS !== undefined ? { sourcePollIntervalMs: settings.AGENTRUN_SOURCE_POLL_INTERVAL_MS } : {}),
  });

  // The address actually bound (HOST, default 0.0.0.0: every interface), and where to reach it here.
  const shown = server.url.replace(/\/\/(0\.0\.0\.0|\[::\])(?=:)/, '//localhost');
  console.log(
    `agentrun reference server listening on ${server.url}${shown !== server.url ? ` (all interfaces; from this machine: ${shown})` : ''}`,
  );
  console.log(`  run API:  ${shown}/api/v1  (store: ${opened.description}, executor: ${chosen.name})`);
  console.log(`  dashboard: ${shown}/dashboard`);
  if (prometheus) console.log(`  metrics:  ${prometheus.url} (Prometheus)`);
  for (const line of apiKeyLines(server.bootstrapKey, opened.kind)) console.log(line);
  console.log(`  secrets:  ${secret.line}`);
  const key = 'key' in server.bootstrapKey ? server.bootstrapKey.key : '$AGENTRUN_API_KEY';
  console.log(`  try:      curl -s -H "Authorization: Bearer ${key}" -d '{"prompt":"hello"}' ${shown}/api/v1/agent/run`);

  stopOnSignals(settings.AGENTRUN_SHUTDOWN_GRACE_MS, server);
}

/**
 * On SIGTERM or SIGINT, running executions get AGENTRUN_SHUTDOWN_GRACE_MS to finish before they
 * are handed back to the queue (docs/operations.md, "Graceful shutdown"); a second signal exits at once.
 */
function stopOnSignals(graceMs: number, server: { close(options: { graceMs: number; timeoutMs: number }): Promise<void> }): void {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) process.exit(1);
      stopping = true;
      console.log(`stopping: running executions have ${graceMs} ms to finish (a second ${signal} exits now)…`);
      // 5 s more for requests in flight and the hand-back; then the store closes, the data directory's lock with it.
      void server.close({ graceMs, timeoutMs: graceMs + 5_000 }).then(() => process.exit(0));
    });
  }
}

/**
 * The start-up lines about the bootstrap key (docs/server.md): shown whole the one time it is made;
 * later starts on the same store say it exists and how to make another.
 */
function apiKeyLines(bootstrap: BootstrapKey, store: 'embedded' | 'postgres' | 'memory'): string[] {
  const another = '            another: `agentrun keys create --name … --scope …`, or POST /api/v1/api-keys (docs/server.md)';
  switch (bootstrap.source) {
    case 'given':
      return ['  API key:  from AGENTRUN_API_KEY'];
    case 'made':
      return store === 'memory'
        ? [`  API key:  ${bootstrap.key} (made for this memory store; set AGENTRUN_API_KEY to choose one)`]
        : [`  API key:  ${bootstrap.key} (the bootstrap key, shown this once: keep it now)`];
    case 'kept':
      return [`  API key:  the bootstrap key ${bootstrap.prefix}… exists (shown when it was made; lost: set AGENTRUN_API_KEY)`, another];
    case 'revoked':
      return ['  API key:  the bootstrap key was revoked; use a key made since, or set AGENTRUN_API_KEY', another];
  }
}

/**
 * Run-state callbacks (docs/callbacks.md, "Options"): every name a callback URL holds is resolved
 * and checked before sending, private addresses only with AGENTRUN_CALLBACKS_ALLOW_PRIVATE.
 */
function callbackOptions(settings: Settings) {
  const baseDelayMs = settings.AGENTRUN_CALLBACK_BASE_DELAY_MS;
  const timeoutMs = settings.AGENTRUN_CALLBACK_TIMEOUT_MS;
  return {
    resolve: async (hostname: string) => (await lookup(hostname, { all: true })).map((a) => a.address),
    allowPrivateAddresses: settings.AGENTRUN_CALLBACKS_ALLOW_PRIVATE,
    policy: { ...(baseDelayMs !== undefined ? { baseDelayMs } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}) },
  };
}
