import type { Store } from '@agentrun/core';
import type { NewRunEvent } from '@agentrun/core/store';
import { createMemoryAgentIdentities } from './agent-identities.js';
import { createMemoryApiKeys } from './api-keys.js';
import { createMemoryArtifacts } from './artifacts.js';
import { createMemoryAudit } from './audit.js';
import { createMemoryCallbacks } from './callbacks.js';
import { createMemoryControlPlane } from './control-plane.js';
import { createMemoryEnvironments } from './environments.js';
import { createMemoryFactorySources } from './factory-sources.js';
import { createMemoryIdempotency } from './idempotency.js';
import { createMemoryInboxReads } from './inbox.js';
import { createMemoryIngress } from './ingress.js';
import { createMemoryNotifications, type RunWrite } from './notifications.js';
import { createMemoryRepositories } from './repositories.js';
import { createMemoryRunEvents } from './run-events.js';
import { createMemoryRuns } from './runs.js';
import { createMemorySchedules } from './schedules.js';
import { createMemoryStats } from './stats.js';
import { createMemoryWorkers } from './workers.js';

export interface MemoryStoreOptions {
  /** Where an exception thrown by a notification listener goes. Default: one `console.error`. */
  onError?: (error: unknown) => void;
}

/**
 * A Store in process memory. Every operation runs to completion without awaiting in between, so
 * on JavaScript's single thread each one is atomic with respect to all others, which is what the
 * Store contract asks of a SQL transaction. Values are cloned on the way in and out, so callers
 * never alias what is stored.
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): Store {
  // One file per part of the Store port, as in core's store/ (docs/stores.md, "The shape of the
  // interface"); the parts that share a step are wired here.
  const notify = createMemoryNotifications(options.onError);
  const { idempotency, withIdempotency } = createMemoryIdempotency();
  // Each run write also fills the callbacks' outbox, in the same synchronous step (callbacks.ts).
  let outbox: (write: RunWrite) => void = () => {};
  // A run write's transcript lines are appended in its own step (run-events.ts `appendNow`).
  let appendEvents: (runId: string, events: readonly NewRunEvent[]) => void = () => {};
  const { runs, insertRun, adoptRun, hasRun, peekRun, allRuns, appendArtifact } = createMemoryRuns(
    withIdempotency,
    (write) => {
      outbox(write);
      notify.published(write);
    },
    (runId, events) => appendEvents(runId, events),
  );
  const { runEvents, appendNow } = createMemoryRunEvents(hasRun, notify.publish);
  appendEvents = appendNow;
  // Control-plane writes append their audit event in the same synchronous step as the change.
  // The audit log reads the delivery log for ingress outcomes (made below, read only when asked).
  const { audit, append } = createMemoryAudit(() => deliveryLog());
  const { environments, writes: environmentWrites } = createMemoryEnvironments(append);
  const { schedules, write: scheduleWrites } = createMemorySchedules(append, insertRun);
  const { callbacks, recordRunWrite, hasEndpoints, recordArtifact, callbackLog } = createMemoryCallbacks(append);
  outbox = (write) => {
    // Most stores have no endpoint: then no write is looked up for one (a lookup per run written).
    if (!hasEndpoints()) return;
    const run = peekRun(write.runId);
    if (run) recordRunWrite(write, run);
  };
  const { webhookSnapshot, ...controlPlane } = createMemoryControlPlane(append, environmentWrites, scheduleWrites);
  // Runs of an accepted delivery are written in the same synchronous step as the delivery.
  const { deliveryLog, deliveryStats, ...ingress } = createMemoryIngress(insertRun, adoptRun, webhookSnapshot, notify.publish);
  return {
    runs,
    runEvents,
    // An artifact and its `run.artifact_added` deliveries are written in one synchronous step.
    artifacts: createMemoryArtifacts((record) => {
      if (!appendArtifact(record.runId, record.item)) return false;
      const run = peekRun(record.runId);
      if (run) recordArtifact(record, run);
      return true;
    }),
    idempotency,
    apiKeys: createMemoryApiKeys(),
    ...controlPlane,
    environments,
    agentIdentities: createMemoryAgentIdentities(append),
    ...ingress,
    repositories: createMemoryRepositories(append),
    factorySources: createMemoryFactorySources(append),
    inboxReads: createMemoryInboxReads(),
    schedules,
    audit,
    callbacks,
    workers: createMemoryWorkers(),
    stats: createMemoryStats(allRuns, deliveryStats, callbackLog),
    notifications: notify.notifications,
    // Nothing to reach and no migrations: ready while the process is (docs/operations.md, "Health").
    checkReady: async () => ({ pendingMigrations: [] }),
    async close() {
      notify.clear();
    },
  };
}
