import { afterAll, beforeEach, describe } from 'vitest';
import type { Store } from '../store/store.js';
import { describeAgentTextConformance } from './agent-text-conformance.js';
import { describeApiKeysConformance } from './api-keys-conformance.js';
import { describeArtifactsConformance } from './artifacts-conformance.js';
import { describeAuditConformance } from './audit-conformance.js';
import { describeControlPlaneConformance } from './control-plane-conformance.js';
import { describeDeliveryDetailsConformance } from './delivery-details-conformance.js';
import { describeEvaluationConformance } from './evaluation-conformance.js';
import { describeFactorySourcesConformance } from './factory-sources-conformance.js';
import { describeIdempotencyConformance } from './idempotency-conformance.js';
import { describeInboxConformance } from './inbox-conformance.js';
import { describeIngressConformance } from './ingress-conformance.js';
import { describeReadinessConformance } from './readiness-conformance.js';
import { describeRepositoriesConformance } from './repositories-conformance.js';
import { describeRunEventsConformance } from './run-events-conformance.js';
import { describeRunsConformance } from './runs-conformance.js';
import { describeSecretResealConformance } from './secret-reseal-conformance.js';
import { describeStatsConformance } from './stats-conformance.js';
import { describeWorkerHostsConformance } from './worker-hosts-conformance.js';

// The suite is cut as the Store port is, file for file: runs-, idempotency-, api-keys-,
// control-plane-, ingress- and run-events-conformance.ts, assembled here (docs/stores.md, "The
// shape of the interface"), with agent-text-conformance.ts: text no store can keep, through a
// worker and an executor. notifications-conformance.ts is the suite of the optional
// `notifications` member: it needs options of its own (another instance, a rolled-back write), so
// a store with notifications runs `describeNotificationsConformance` beside this one.

export interface StoreConformanceOptions {
  /** A fresh, empty store for each test. */
  create: () => Store | Promise<Store>;
  /** Runs after each test with the store it used (defaults to `store.close()`). */
  destroy?: (store: Store) => void | Promise<void>;
  /** Random cases for the list property test. Default 25. */
  listCases?: number;
}

/**
 * The behaviour every `Store` must have, as a vitest suite. A store package runs it with a
 * factory for empty stores:
 *
 * ```ts
 * import { describeStoreConformance } from '@agentrun/core/testing';
 * describeStoreConformance('memory', { create: () => createMemoryStore() });
 * ```
 */
export function describeStoreConformance(name: string, options: StoreConformanceOptions): void {
  describe(`Store conformance: ${name}`, () => {
    let store: Store;
    const opened: Store[] = [];
    beforeEach(async () => {
      store = await options.create();
      opened.push(store);
    });
    afterAll(async () => {
      for (const s of opened) await (options.destroy ? options.destroy(s) : s.close?.());
    });

    const current = () => store;
    describeRunsConformance(current, options);
    describeIdempotencyConformance(current);
    describeApiKeysConformance(current);
    describeControlPlaneConformance(current);
    describeSecretResealConformance(current);
    describeIngressConformance(current);
    describeEvaluationConformance(current);
    describeDeliveryDetailsConformance(current);
    describeRunEventsConformance(current);
    describeArtifactsConformance(current);
    describeInboxConformance(current);
    describeFactorySourcesConformance(current);
    describeAgentTextConformance(current);
    describeAuditConformance(current);
    describeReadinessConformance(current);
    describeRepositoriesConformance(current);
    describeWorkerHostsConformance(current, options);
    describeStatsConformance(current);
  });
}
