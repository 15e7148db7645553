import type { Notifications } from '../notify/notification.js';
import type { AgentIdentityStore } from './agent-identities.js';
import type { ApiKeyStore } from './api-keys.js';
import type { ArtifactStore } from './artifacts.js';
import type { AuditStore } from './audit.js';
import type { CallbackStore } from './callbacks.js';
import type { AutomationStore, FactoryStore, SecretStore, WebhookStore } from './control-plane.js';
import type { DefinitionStore } from './definitions.js';
import type { EnvironmentStore } from './environments.js';
import type { FactorySourceStore } from './factory-sources.js';
import type { IdempotencyStore } from './idempotency.js';
import type { InboxReadStore } from './inbox.js';
import type { DeliveryStore, RateLimitStore } from './ingress.js';
import type { RepositoryStore } from './repositories.js';
import type { RunEventStore } from './run-events.js';
import type { RunStore } from './runs.js';
import type { ScheduleStore } from './schedules.js';
import type { StatsStore } from './stats.js';
import type { WorkerStore } from './workers.js';

// The Store port is cut into one file per part, and the stores and the conformance suites are cut
// the same way, file for file (docs/stores.md, "The shape of the interface"; docs/architecture.md,
// "Ports"), so each part is found under one name everywhere: runs.ts, run-events.ts (the
// transcript), artifacts.ts, idempotency.ts, api-keys.ts, control-plane.ts (factories, secrets,
// webhooks, automations), definitions.ts, environments.ts, agent-identities.ts, schedules.ts (the
// scheduler's), ingress.ts (the delivery log and rate limits, with the evaluator's claim and
// completion), repositories.ts, factory-sources.ts, inbox.ts, audit.ts, callbacks.ts (endpoints and
// the outbox the dispatcher sends), and this assembly. The `notifications` member's port lives in
// notify/ (notify/notification.ts), beside the hub that delivers it in process; stores implement
// it in their notifications.ts.

/** What `Store.checkReady` found. */
export interface StoreReadiness {
  /** The IDs of migrations this code expects that the store has not applied; empty when current. */
  pendingMigrations: readonly string[];
}

/**
 * The persistence port of agentrun. Each method is one whole use case, so a SQL store can make it
 * one atomic statement or transaction; core never composes several store calls into something
 * that must be atomic. Stores decide nothing about the domain: which state comes next is computed
 * by the state machine in core, and the store applies it only if the run still is as expected.
 *
 * Every method may be called concurrently. Returned objects belong to the caller (no aliasing of
 * store internals). All timestamps are RFC 3339 UTC strings with milliseconds.
 *
 * `@agentrun/core/testing` exports `describeStoreConformance`, which every store must pass.
 */
export interface Store {
  readonly runs: RunStore;
  /** Each run's transcript (docs/stores.md, "Run events"). */
  readonly runEvents: RunEventStore;
  /** What each run's agent reported: plans, pull requests, screenshots, files (docs/stores.md, "Artifacts"). */
  readonly artifacts: ArtifactStore;
  readonly idempotency: IdempotencyStore;
  readonly apiKeys: ApiKeyStore;
  readonly factories: FactoryStore;
  readonly secrets: SecretStore;
  readonly webhooks: WebhookStore;
  readonly automations: AutomationStore;
  /** What the last apply of each factory's definition files left, and the write of the next (docs/definitions.md). */
  readonly definitions: DefinitionStore;
  /** What runs' workspaces are prepared from (docs/repositories.md, "Environments"). */
  readonly environments: EnvironmentStore;
  /** Named agent identities runs may name by `agent_identity_uid` (docs/run-api.md, "Agent identities"). */
  readonly agentIdentities: AgentIdentityStore;
  /** Cron schedules that start runs, and the due times they claimed (docs/schedules.md). */
  readonly schedules: ScheduleStore;
  readonly deliveries: DeliveryStore;
  /** The repositories each team's skills resolve against (docs/repositories.md). */
  readonly repositories: RepositoryStore;
  /** Factories backed by a source repository, and the commits applied from each (docs/repositories.md, "Factories from a repository"). */
  readonly factorySources: FactorySourceStore;
  readonly rateLimits: RateLimitStore;
  /** Who read which factory inbox notification (docs/run-api.md, "The factory inbox"). */
  readonly inboxReads: InboxReadStore;
  /** The audit log (docs/operations.md, "Audit"). */
  readonly audit: AuditStore;
  /** Run-state callbacks: endpoints, the outbox and its delivery log (docs/callbacks.md). */
  readonly callbacks: CallbackStore;
  /** The live workers' presence records (docs/operations.md, "Worker hosts"). */
  readonly workers: WorkerStore;
  /** The counts behind the dashboard's overview (docs/stores.md, "Stats"). */
  readonly stats: StatsStore;
  /**
   * Optional: hear this store's writes from any process sharing it, published at commit for every
   * write that queues a run, changes its state or adds a follow-up (docs/stores.md,
   * "Notifications"). Without it, workers learn of other processes' writes by polling.
   */
  readonly notifications?: Notifications;
  /** Release connections and timers. */
  close?(): Promise<void>;
  /**
   * Optional: whether the store can serve, for `GET /readyz` (docs/operations.md, "Health"): one
   * cheap round trip that throws when the store cannot be reached, and resolves to the migrations
   * not yet applied (none when current). A store without it counts as ready.
   */
  checkReady?(): Promise<StoreReadiness>;
  /**
   * Whether `error` (thrown by this store) means the store cannot be reached for now: the
   * database is down, restarting or failing over. Such errors are answered 503 with
   * `Retry-After`, not 500 (docs/stores.md, "Outages").
   */
  isUnavailable?(error: unknown): boolean;
}
