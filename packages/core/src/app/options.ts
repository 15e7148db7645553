import type { BlobStore } from '../artifacts/blob-store.js';
import type { ArtifactLimits } from '../artifacts/limits.js';
import type { Authenticate } from '../auth/api-keys.js';
import type { CallbackRetryPolicy } from '../callbacks/policy.js';
import type { CallbackSender } from '../callbacks/sender.js';
import type { SecretKeyOption } from '../control/secret-cipher.js';
import type { AgentRunEvents } from '../events.js';
import type { Executor } from '../executor/executor.js';
import type { StreamLimits } from '../http/paced-body.js';
import type { EvaluatorOptions } from '../ingress/evaluation/evaluator.js';
import type { IngressLimits } from '../ingress/pipeline.js';
import type { ApiKeyEvent } from '../keys/key-service.js';
import type { Logger } from '../logging/logger.js';
import type { MaintenanceTask } from '../maintenance/maintenance.js';
import type { RepositoryReader } from '../repositories/reader.js';
import type { Store } from '../store/store.js';
import type { TelemetryOptions } from '../telemetry/providers.js';
import type { Clock } from '../util/clock.js';
import type { HmacPort, Sha256Port } from '../verify/crypto.js';
import type { VerifierRegistry } from '../verify/registry.js';

/** Options of `createAgentRun` (docs/embedding.md, "Options of `createAgentRun`"). Only `store` is required. */
export interface AgentRunOptions {
  store: Store;
  /** What `agentrun.worker()` runs runs with, unless the call names another. */
  executor?: Executor;
  /**
   * How skills are read from the teams' registered repositories (docs/repositories.md): a
   * `RepositoryReader`, such as `@agentrun/git-sources`'. Without one, no skill spec resolves: a
   * run or automation naming a skill is a 400 that says so.
   */
  repositories?: RepositoryReader;
  /**
   * How long a skill repository's branch is trusted before it is fetched again (docs/repositories.md,
   * "Caching"). Default 60 000 ms.
   */
  skillRefreshMs?: number;
  /**
   * How often the workers fetch every factory source and apply a new commit, the fallback to push
   * notifications (docs/repositories.md, "Factories from a repository"). Default 60,000 ms.
   */
  sourcePollIntervalMs?: number;
  /** Resolve the caller; defaults to API keys in the store (`Authorization: Bearer <key>`). */
  authenticate?: Authenticate;
  /** Share one emitter with the host app; one is created otherwise. */
  events?: AgentRunEvents;
  clock?: Clock;
  /** Largest run API request body, in bytes. Default 40 MiB (five 5 MiB attachments in base64). */
  maxBodyBytes?: number;
  /** How long an `Idempotency-Key` is remembered. Default 24 h. */
  idempotencyTtlMs?: number;
  /** Claims allowed before an expired lease ends a run in `ERROR`. Default 3. */
  maxAttempts?: number;
  /**
   * The 32-byte key that seals team secrets (AES-256-GCM): base64, 64 hex digits, or bytes. Without
   * it, the management operations that store a secret answer 503 and say why. A list rotates keys:
   * the first seals, every one opens (docs/operations.md, "Rotating the secret key").
   */
  secretKey?: SecretKeyOption;
  /**
   * Where agentrun is mounted, as people and senders reach it (`https://agents.example.com/agents`,
   * mount path included). A run's default `session_link` is its dashboard page under it
   * (`<publicBaseUrl><dashboardPath>/runs/<id>`, run/session-link.ts); without it a run has a
   * `session_link` only when its agent reports one. Also the default of `webhookBaseUrl`.
   */
  publicBaseUrl?: string;
  /**
   * Where the dashboard is mounted below `publicBaseUrl` (its `basePath`), for the default
   * `session_link`; `false` when it is not mounted, so runs get no link that would not open.
   * Default `/dashboard`.
   */
  dashboardPath?: string | false;
  /** Base of webhook ingress URLs, e.g. `https://hooks.example.com`. Default: `publicBaseUrl`, else the request's origin and mount path. */
  webhookBaseUrl?: string;
  /** Default 20. */
  maxWebhooksPerFactory?: number;
  /**
   * Where artifacts' bytes (screenshots, files, plans' text) are kept (docs/artifacts.md, "Blob
   * storage"): `@agentrun/blob-storage`'s filesystem store, `@agentrun/store-postgres`'s
   * `createPostgresBlobStore`, or your own. Without one, agents can still report pull requests and
   * plans by URL; uploads are refused, saying why.
   */
  blobs?: BlobStore;
  /** Sizes and counts of uploaded artifacts (docs/artifacts.md, "Limits"). */
  artifactLimits?: Partial<ArtifactLimits>;
  /**
   * The key that signs artifacts' `download_url`s (at least 32 bytes). Default: derived from the
   * first `secretKey`; without either, a random key per process (links open only on that process).
   */
  downloadUrlKey?: string | Uint8Array;
  /** HMAC for signature webhooks. Default: node:crypto on Node, portable @noble/hashes elsewhere. */
  hmac?: HmacPort;
  /** SHA-256 for delivery identities hashed from the body. Default: as for `hmac`. */
  sha256?: Sha256Port;
  /** Verifiers by scheme; default: the built-in schemes (docs/signatures.md) on `hmac`. */
  verifiers?: VerifierRegistry;
  /**
   * How the bodies read from a run's transcript (the live event stream, the transcript page) are
   * paced by their client (docs/run-api.md, "Slow readers"): at most `queueBytes` queued per
   * client (default 256 KiB) before the store is no longer read for it, and a client whose queue
   * stays full for `dropStalledAfterMs` (default 60 s) is disconnected.
   */
  streamLimits?: Partial<StreamLimits>;
  /** Ingress limits; defaults: 256 KB bodies, 60 deliveries and 20 failed authentications a minute per webhook. */
  ingressLimits?: Partial<IngressLimits>;
  /**
   * How accepted deliveries are evaluated (docs/webhooks.md, "When runs start"): `batchSize`
   * deliveries per claim (default 100), each claim's `leaseMs` (default 30 s), the `pollMs`
   * fallback when no notification wakes it (default 1 s).
   */
  evaluation?: Partial<Pick<EvaluatorOptions, 'batchSize' | 'leaseMs' | 'pollMs'>>;
  /** Housekeeping the workers run on their timer; default: idempotency purge and delivery-log sweep. */
  maintenanceTasks?: readonly MaintenanceTask[];
  /** How long audit events are kept (docs/operations.md, "Audit"); default 90 days. Pruned by the default maintenance. */
  auditRetentionMs?: number;
  /**
   * Called with every unexpected error: those answered as a bare 500 (with their request), those
   * thrown by event listeners and maintenance tasks (without one). `context.requestId` is the
   * `x-request-id` the 500 answer carries, so a user's report can be matched to the log. Default:
   * `logger.error({ request_id, err }, 'unexpected error')` (docs/operations.md, "Logging"); given,
   * it replaces that line.
   */
  onError?: (error: unknown, request: Request | undefined, context?: { requestId: string }) => void;
  /**
   * OpenTelemetry providers for agentrun's metrics and spans (docs/operations.md, "Metrics and
   * traces"); default: the global ones a host's SDK registered before this call; `false`: none.
   */
  telemetry?: TelemetryOptions | false;
  /** Told when an API key is created or revoked (keys/key-service.ts), e.g. to audit it. */
  onApiKeyEvent?: (event: ApiKeyEvent) => void | Promise<void>;
  /** How often the API keys' `last_used_at` is written, at most (docs/operations.md, "API keys"). Default 60 000 ms. */
  keyUsageFlushMs?: number;
  /**
   * Where agentrun logs (docs/operations.md, "Logging"): any pino-compatible object
   * (`info/warn/error/debug`, fields first, message second). Default: the request's logger an
   * adapter attached (Fastify's `request.log`), else the console (errors and warnings only).
   */
  logger?: Logger;
  /** Run-state callbacks (docs/callbacks.md): how they are sent, where they may go, how they are retried. */
  callbacks?: CallbackOptions;
}

/** `createAgentRun({ callbacks })` (docs/callbacks.md, "Options"). */
export interface CallbackOptions {
  /** How a callback is sent. Default: `fetch`, checking the URL's literal address (and every resolved one with `resolve`). */
  sender?: CallbackSender;
  /** Names to addresses, for the default sender's check after DNS (Node: `dns.promises.lookup(name, { all: true })`). */
  resolve?: (hostname: string) => Promise<readonly string[]>;
  /** Let endpoints point at private, loopback and link-local addresses (tests, local use). Default false. */
  allowPrivateAddresses?: boolean;
  /** Retries, timeout and the failing rule; defaults in callbacks/policy.ts `DEFAULT_CALLBACK_POLICY`. */
  policy?: Partial<CallbackRetryPolicy>;
}
