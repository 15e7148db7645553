import { ArtifactService } from '../artifacts/artifact-service.js';
import { DEFAULT_ARTIFACT_LIMITS } from '../artifacts/limits.js';
import { createDownloadSigner, downloadKey } from '../artifacts/signed-url.js';
import { recordAuditEvent } from '../audit/event.js';
import { apiKeyAuthenticator } from '../auth/api-keys.js';
import { callbackDispatchTask } from '../callbacks/dispatch-task.js';
import { createCallbackDispatcher } from '../callbacks/dispatcher.js';
import { DEFAULT_CALLBACK_POLICY } from '../callbacks/policy.js';
import { fetchCallbackSender } from '../callbacks/sender.js';
import { CallbackService } from '../callbacks/service.js';
import { ControlService } from '../control/control-service.js';
import { createSecretCipher, missingCipher } from '../control/secret-cipher.js';
import { resolveEnvironment } from '../environments/resolved.js';
import { type AgentRunEvents, createEvents } from '../events.js';
import { resolveHarnessAuth } from '../harness/resolve-harness-auth.js';
import { healthOperations } from '../health/health-operations.js';
import { artifactOperations } from '../http/artifact-operations.js';
import { auditOperations } from '../http/audit-operations.js';
import { callbackOperations } from '../http/callback-operations.js';
import { controlOperations } from '../http/control-operations.js';
import { environmentOperations } from '../http/environment-operations.js';
import { harnessOperations } from '../http/harness-operations.js';
import { idempotentWrites } from '../http/idempotent-write.js';
import { identityOperations } from '../http/identity-operations.js';
import { jsonReaders } from '../http/json-readers.js';
import { keyOperations } from '../http/key-operations.js';
import { metaOperations } from '../http/meta-operations.js';
import type { Mountable } from '../http/mountable.js';
import { DEFAULT_STREAM_LIMITS } from '../http/paced-body.js';
import { pythonClientOperations } from '../http/python-client-operations.js';
import { repositoryOperations } from '../http/repository-operations.js';
import { runOperations } from '../http/run-operations.js';
import { scheduleOperations } from '../http/schedule-operations.js';
import { sourceOperations } from '../http/source-operations.js';
import { statsOperations } from '../http/stats-operations.js';
import { createHttpSurface, ingressOperations } from '../http/surface.js';
import { workerOperations } from '../http/worker-operations.js';
import { createDeliveryRuns } from '../ingress/delivery-runs.js';
import { createEvaluator, type Evaluator } from '../ingress/evaluation/evaluator.js';
import { createIngress, DEFAULT_INGRESS_LIMITS } from '../ingress/pipeline.js';
import { ApiKeyService } from '../keys/key-service.js';
import { createKeyUsage } from '../keys/key-usage.js';
import { consoleLogger, logUnexpectedError } from '../logging/logger.js';
import { requestLoggerOf } from '../logging/request-log.js';
import { createMaintenance, defaultMaintenanceTasks, type Maintenance } from '../maintenance/maintenance.js';
import { workerHostTask } from '../maintenance/worker-host-sweep.js';
import { DEFAULT_IDEMPOTENCY_TTL_MS } from '../run/idempotency.js';
import type { RunRecord } from '../run/record.js';
import { RunService } from '../run/run-service.js';
import { sessionLinkFor } from '../run/session-link.js';
import { createScheduler, type Scheduler, type SchedulerOptions } from '../schedules/scheduler.js';
import { ScheduleService } from '../schedules/service.js';
import { SkillCatalog } from '../skills/skill-catalog.js';
import { DEFAULT_SOURCE_POLL_MS, sourcePollTask } from '../sources/poll.js';
import type { Store } from '../store/store.js';
import { createTelemetry } from '../telemetry/telemetry.js';
import { type Clock, systemClock } from '../util/clock.js';
import { defaultHmac, defaultSha256 } from '../verify/crypto.js';
import { builtinVerifiers, createVerifierRegistry } from '../verify/registry.js';
import { createWorker, type Worker, type WorkerOptions } from '../worker/worker.js';
import { type AgentRunRunner, type AgentRunRunnerOptions, type AgentRunRunsOptions, makeAgentRunRunner } from './agent-run-runner.js';
import type { AgentRunOptions } from './options.js';
import { checkAgentRunOptions } from './options-check.js';

/**
 * Settings of one worker (`agentrun.worker()`, a runner with every part: app/agent-run-runner.ts);
 * its dependencies come from the root.
 */
export type AgentRunWorkerOptions = AgentRunRunsOptions & {
  /**
   * The scheduler that runs beside the worker, started and stopped with it (docs/schedules.md):
   * its settings, or `false` for none in this process. Default: on, with the defaults.
   */
  schedules?: false | Omit<SchedulerOptions, 'runs'>;
};

/**
 * agentrun, assembled: every service built once from one set of options, the HTTP surface on
 * Web-standard `Request`/`Response` (mountable whole, or as its API and ingress parts), and
 * workers that share the same store, events, clock and maintenance (docs/architecture.md).
 */
export interface AgentRun extends Mountable {
  readonly store: Store;
  readonly events: AgentRunEvents;
  readonly clock: Clock;
  readonly services: {
    readonly runs: RunService;
    readonly control: ControlService;
    readonly apiKeys: ApiKeyService;
    readonly schedules: ScheduleService;
  };
  /** The run API and the management API (`/api/v1/…`). */
  readonly api: Mountable;
  /** The webhook ingress (`/webhooks/…`). */
  readonly ingress: Mountable;
  /** `GET /healthz` and `GET /readyz` (docs/operations.md, "Health"). */
  readonly health: Mountable;
  /** Housekeeping; the workers run it on their timer. A host without a worker calls `runDue()` itself. */
  readonly maintenance: Maintenance;
  /**
   * Write the API keys' pending `last_used_at` now (they are batched, keys/key-usage.ts). A
   * worker's `stop()` calls it; a host without a worker calls it when it shuts down.
   */
  flushKeyUsage(): Promise<void>;
  /**
   * This process's background work (docs/embedding.md, "The runner"): the runs (the worker), the
   * evaluation of deliveries, the schedules, maintenance, callbacks and sources, each on unless
   * `false`; one `start()`, one `stop()`, one health report (also on `GET /readyz`).
   */
  runner(options?: AgentRunRunnerOptions): AgentRunRunner;
  /**
   * A runner with every part, as a worker: `runner({ runs: options, schedules })`; call `start()`
   * on it. `stop()` stops every part.
   */
  worker(options?: AgentRunWorkerOptions): Worker;
  /**
   * The evaluation of accepted deliveries (docs/webhooks.md, "When runs start"): it runs while any
   * runner's `evaluation` part runs; a process without a runner may start it here (`start()`/`stop()`).
   * `drain()` evaluates every delivery waiting now and resolves when done (for tests).
   */
  readonly evaluator: Pick<Evaluator, 'start' | 'stop' | 'drain'>;
  /**
   * Shut down (docs/operations.md, "Graceful shutdown"): `/readyz` answers 503 from now on; every
   * runner made by `runner()` or `worker()` stops, its executions given `graceMs` (default 0) to finish before
   * the rest are handed back to the queue; then the store is closed unless `closeStore: false`.
   */
  close(options?: { graceMs?: number; closeStore?: boolean }): Promise<void>;
}

export function createAgentRun(options: AgentRunOptions, caller = 'createAgentRun'): AgentRun {
  checkAgentRunOptions(options, caller);
  const events = options.events ?? createEvents();
  const clock = options.clock ?? systemClock;
  // Logs go to the host's logger, else the adapter's for the request, else the console
  // (logging/logger.ts); onError, when given, takes the unexpected errors instead.
  const logger = options.logger;
  const onError = options.onError ?? logUnexpectedError((request) => logger ?? requestLoggerOf(request) ?? consoleLogger);
  // The runners runner() and worker() make, seen by /readyz and stopped by close().
  const runners = new Set<AgentRunRunner>();
  let closing = false;
  const reportError = (error: unknown) => onError(error, undefined);
  // Metrics and spans (telemetry/): without an OpenTelemetry SDK, `store` is options.store and every hook undefined.
  const telemetry = createTelemetry({ options: options.telemetry, store: options.store, events, clock, onError: reportError });
  const { store } = telemetry;

  // Sealed team secrets open with this cipher (a repository's read credential among them).
  const cipher = options.secretKey === undefined ? missingCipher : createSecretCipher(options.secretKey);
  // One cache of resolved skills for the run API, automation saves, webhook runs and GET /agent.
  const skills = new SkillCatalog(store, cipher, options.repositories, {
    clock,
    onError: reportError,
    ...(options.skillRefreshMs !== undefined ? { refreshMs: options.skillRefreshMs } : {}),
  });
  // What the executor runs, asked once per read (it caches its own look-up): docs/harnesses.md.
  const executorHarnesses = options.executor?.harnesses?.bind(options.executor);
  const harnesses = executorHarnesses ? () => executorHarnesses() : undefined;
  const runs = new RunService({
    store,
    events,
    clock,
    skills,
    ...(harnesses ? { harnesses } : {}),
    onError: reportError,
    ...(options.idempotencyTtlMs !== undefined ? { idempotencyTtlMs: options.idempotencyTtlMs } : {}),
    ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
  });
  // Ingress URLs start where people reach agentrun unless the ingress has a base of its own.
  const webhookBaseUrl = options.webhookBaseUrl ?? options.publicBaseUrl;
  // Which runs a delivery starts: one decider for the ingress and for resends.
  const deliveryRuns = createDeliveryRuns({ skills, onError: reportError });
  const verifiers = options.verifiers ?? createVerifierRegistry(builtinVerifiers(options.hmac ?? defaultHmac));
  const control = new ControlService({
    store,
    cipher,
    clock,
    skills,
    deliveryRuns,
    events,
    verifiers,
    onError: reportError,
    ...(webhookBaseUrl !== undefined ? { webhookBaseUrl } : {}),
    ...(options.maxWebhooksPerFactory !== undefined ? { maxWebhooksPerFactory: options.maxWebhooksPerFactory } : {}),
  });
  // The schedulers of this process's runners, woken by a schedule saved here (docs/schedules.md).
  const schedulers = new Set<Scheduler>();
  const schedules = new ScheduleService({
    store,
    clock,
    skills,
    onChange: () => {
      for (const s of schedulers) s.wake();
    },
  });
  // Accepted deliveries' runs, made after the 202 by whichever process's evaluator claims them
  // first (docs/webhooks.md, "When runs start"); one per agentrun, running while a runner's `evaluation` part runs.
  const evaluator = createEvaluator({
    store,
    deliveryRuns,
    events,
    clock,
    onError: reportError,
    onEvaluated: telemetry.ingress?.evaluated,
    ...options.evaluation,
  });
  const ingress = createIngress({
    store,
    cipher,
    verifiers,
    sha256: options.sha256 ?? defaultSha256,
    clock,
    limits: { ...DEFAULT_INGRESS_LIMITS, ...options.ingressLimits },
    onError: reportError,
    telemetry: telemetry.ingress,
    onAccepted: evaluator.accepted,
  });
  // Run-state callbacks (docs/callbacks.md): the API's service, and the outbox's dispatcher (a runner's `callbacks` part).
  const allowPrivateAddresses = options.callbacks?.allowPrivateAddresses ?? false;
  const callbacks = new CallbackService({ store, cipher, clock, allowPrivateAddresses });
  const callbackDispatcher = createCallbackDispatcher({
    store,
    cipher,
    clock,
    hmac: options.hmac ?? defaultHmac,
    sender:
      options.callbacks?.sender ??
      fetchCallbackSender({
        allowPrivateAddresses,
        ...(options.callbacks?.resolve !== undefined ? { resolve: options.callbacks.resolve } : {}),
      }),
    policy: { ...DEFAULT_CALLBACK_POLICY, ...options.callbacks?.policy },
    onError: reportError,
  });
  const maintenance = createMaintenance({
    store,
    cipher,
    clock,
    onError: reportError,
    // The poll of factory sources and the callbacks' dispatch are tasks too, each run by a part of
    // its own of the runners (app/agent-run-runner.ts), and by `runDue()`/`runAll()` of a host without one.
    tasks: [
      ...(options.maintenanceTasks ?? defaultMaintenanceTasks(store, options.auditRetentionMs)),
      sourcePollTask(control, options.sourcePollIntervalMs ?? DEFAULT_SOURCE_POLL_MS),
      callbackDispatchTask(callbackDispatcher),
      // Worker hosts: dead workers' records deleted, and what routed runs wait for (docs/operations.md, "Worker hosts").
      workerHostTask(runs),
    ],
  });

  // The link a run gets when it starts without one (run/session-link.ts); none without publicBaseUrl.
  const sessionLink = sessionLinkFor(options);

  const apiKeys = new ApiKeyService({
    store: store.apiKeys,
    clock,
    onError: reportError,
    // Each key created or revoked goes to the audit log (docs/operations.md, "Audit"), then to
    // the host's hook; a failure of either is reported and the change stands.
    onEvent: async (event) => {
      const at = Date.parse(event.at);
      const detail = { name: event.key.name, prefix: event.key.prefix, scopes: event.key.scopes?.join(' ') ?? null };
      await recordAuditEvent(store, event.principal, event.kind, { type: 'api_key', id: event.key.id }, detail, at);
      await options.onApiKeyEvent?.(event);
    },
  });
  const keyUsage = createKeyUsage(store.apiKeys, {
    onError: reportError,
    ...(options.keyUsageFlushMs !== undefined ? { flushMs: options.keyUsageFlushMs } : {}),
  });

  const readers = jsonReaders(options.maxBodyBytes ?? DEFAULT_MAX_BODY);
  const idempotent = idempotentWrites({
    store: store.idempotency,
    cipher,
    clock,
    ttlMs: options.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS,
  });
  // Artifacts (docs/artifacts.md): reported by the workers' executors, read through the artifact call and signed links.
  const artifacts = new ArtifactService({
    store,
    ...(options.blobs ? { blobs: options.blobs } : {}),
    signer: createDownloadSigner(options.hmac ?? defaultHmac, () => downloadKey(options.hmac ?? defaultHmac, options)),
    clock,
    limits: { ...DEFAULT_ARTIFACT_LIMITS, ...options.artifactLimits },
    onError: reportError,
  });
  const surface = createHttpSurface({
    operations: {
      ...runOperations(runs, readers, { ...DEFAULT_STREAM_LIMITS, ...options.streamLimits }),
      ...artifactOperations(artifacts, options.publicBaseUrl),
      ...controlOperations(control, readers, idempotent, managementBodyLimits(options)),
      ...keyOperations(apiKeys, readers, managementBodyLimits(options).bodyBytes),
      ...repositoryOperations(skills, clock, readers, idempotent, managementBodyLimits(options).bodyBytes),
      ...ingressOperations(ingress),
      ...metaOperations(),
      ...harnessOperations(harnesses),
      ...workerOperations(store, clock),
      ...statsOperations(store, clock),
      ...auditOperations(store),
      ...environmentOperations(control, readers, idempotent, managementBodyLimits(options).bodyBytes),
      ...identityOperations(control, readers, idempotent, managementBodyLimits(options).bodyBytes),
      ...callbackOperations(callbacks, readers, idempotent, managementBodyLimits(options).bodyBytes),
      ...sourceOperations(control, readers, managementBodyLimits(options).bodyBytes),
      ...pythonClientOperations(runs, control, readers),
      ...scheduleOperations(schedules, readers, idempotent, managementBodyLimits(options).bodyBytes),
      ...healthOperations({ store, runners: () => [...runners], closing: () => closing }),
    },
    authenticate: options.authenticate ?? apiKeyAuthenticator(store.apiKeys, { clock, usage: keyUsage }),
    store,
    onError,
    telemetry: telemetry.request,
    ...(logger ? { logger } : {}),
  });

  const runnerRoot = {
    makeWorker: (workerOptions: AgentRunRunsOptions) => {
      const executor = workerOptions.executor ?? options.executor;
      return createWorker({
        ...workerOptions,
        ...(executor ? { executor } : {}),
        runs,
        store,
        events,
        clock,
        ...(sessionLink ? { sessionLink } : {}),
        artifacts,
        resolveEnvironment: (run: RunRecord) => resolveEnvironment(store, cipher, run.teamUid, run.config.environment_id),
        resolveHarnessAuth: (run: RunRecord) => resolveHarnessAuth(store, cipher, run),
        ...(telemetry.worker ? { telemetry: telemetry.worker } : {}),
        onError: workerOptions.onError ?? reportError,
      } as WorkerOptions);
    },
    makeScheduler: (scheduling: Omit<SchedulerOptions, 'runs'>) => createScheduler({ ...scheduling, runs }),
    schedulers,
    evaluator,
    maintenance,
    onError: reportError,
    flushKeyUsage: keyUsage.flush,
  };
  const makeRunner = (runnerOptions?: AgentRunRunnerOptions) => {
    const runner = makeAgentRunRunner(runnerRoot, runnerOptions);
    runners.add(runner);
    return runner;
  };

  return {
    // One dispatcher serves both parts: the route table already tells them apart. A further part
    // (a dashboard) joins them with composeMounts([agentrun, dashboard], …) (http/mountable.ts).
    fetch: surface.fetch,
    owns: surface.owns,
    store,
    events,
    clock,
    services: { runs, control, apiKeys, schedules },
    flushKeyUsage: keyUsage.flush,
    api: surface.api,
    ingress: surface.ingress,
    health: surface.health,
    maintenance,
    evaluator: { start: evaluator.start, stop: evaluator.stop, drain: evaluator.drain },
    runner: (runnerOptions) => makeRunner(runnerOptions),
    worker({ schedules: scheduling, ...workerOptions } = {}) {
      const runner = makeRunner({ runs: workerOptions, ...(scheduling !== undefined ? { schedules: scheduling } : {}) });
      const worker = runner.worker as Worker;
      return { ...worker, start: runner.start, stop: runner.stop };
    },
    async close({ graceMs = 0, closeStore = true } = {}) {
      closing = true;
      await Promise.all([...runners].map((r) => r.stop({ graceMs })));
      await evaluator.close();
      // A sync under way (a push's, a poll's) finishes before the store goes.
      await control.sourcesIdle();
      // The keys' last uses are written before the store goes (a process without a worker too).
      await keyUsage.flush();
      if (closeStore) await store.close?.();
    },
  };
}

/** Largest run API request body: five 5 MiB attachments in base64, with room for the rest. */
const DEFAULT_MAX_BODY = 40 * 1024 * 1024;

/**
 * The management API's bodies (docs/management-api.md, "Body limits"): 4 MiB, or the run API's
 * limit when that is smaller; a test-filter's, the ingress's limit (its payload is a delivery)
 * and 4 KiB for the rest of the body.
 */
const managementBodyLimits = (options: AgentRunOptions) => ({
  bodyBytes: Math.min(options.maxBodyBytes ?? DEFAULT_MAX_BODY, 4 * 1024 * 1024),
  testFilterBytes: (options.ingressLimits?.maxBodyBytes ?? DEFAULT_INGRESS_LIMITS.maxBodyBytes) + 4096,
});
