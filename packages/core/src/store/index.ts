// `@agentrun/core/store`: what a store implementation needs (docs/stores.md): the Store port, the
// records it keeps, and the rules it must apply exactly as core does (run order and filters,
// leased and terminal states, notifications). Its conformance suites are `@agentrun/core/testing`.

export { type BlobStore, blobKey, type StoredBlob } from '../artifacts/blob-store.js';
export type { ArtifactItem, ArtifactType } from '../artifacts/model.js';
export type * from '../artifacts/records.js';
export type * from '../audit/records.js';
export * from '../callbacks/records.js';
export * from '../control/records.js';
export type * from '../definitions/records.js';
export type * from '../environments/records.js';
export type { ContainerLimits } from '../environments/resolved.js';
export { AgentRunError, isAgentRunError } from '../errors.js';
export type * from '../identities/records.js';
export * from '../ingress/records.js';
export { RUN_SOURCES, RUN_STATES, type RunSourceType, type RunState, TERMINAL_STATES } from '../models/run-state.js';
export {
  createNotificationHub,
  type Notification,
  type NotificationHub,
  type NotificationListener,
  type Notifications,
} from '../notify/index.js';
export type * from '../repositories/records.js';
export {
  compareCodePoints,
  comparePositions,
  compareRuns,
  isAfterPosition,
  matchesRunFilter,
  RUN_SORT_KEYS,
  type RunFilter,
  type RunListQuery,
  type RunPosition,
  type RunSortKey,
  type SortOrder,
  sortValue,
} from '../run/list-query.js';
export { type AttachmentRecord, type FollowupRecord, type RunLease, type RunRecord, toRunItem } from '../run/record.js';
export {
  CANCELLABLE_STATES,
  CLAIM,
  CLAIM_AND_START,
  isTerminal,
  LEASED_STATES,
  nextUpdatedAt,
} from '../run/state-machine.js';
export { stateEvent } from '../run/transcript.js';
export type * from '../schedules/records.js';
export * from '../sources/records.js';
export { bucketIndex, type StatsWindow } from '../stats/buckets.js';
export { DURATION_HISTOGRAM_BOUNDS_MS, DURATION_HISTOGRAM_SIZE, durationBucket } from '../stats/histogram.js';
export { deliveryStatLabel, runDurationKey, runDurationMs } from '../stats/keys.js';
export { DELIVERY_STAT_LABELS, type DeliveryStatLabel, type RunDurationGrouping } from '../stats/ranges.js';
export { isoTime } from '../util/clock.js';
export { utf8Length } from '../util/utf8-length.js';
export { runWorkerHost, takesRun } from '../worker/worker-hosts.js';
export type * from './agent-identities.js';
export type * from './api-keys.js';
export type * from './artifacts.js';
export type * from './audit.js';
export type * from './callbacks.js';
export type * from './control-plane.js';
export type * from './definitions.js';
export type * from './environments.js';
export type * from './factory-sources.js';
export { SOURCE_APPLIES_KEPT } from './factory-sources.js';
export type * from './idempotency.js';
export type * from './inbox.js';
export type * from './ingress.js';
export { retryAfterMs } from './rate-window.js';
export type * from './repositories.js';
export type * from './run-events.js';
export { RUN_EVENT_TYPES, RUN_EVENTS_PER_RUN } from './run-events.js';
export type * from './runs.js';
export type * from './schedules.js';
export type * from './stats.js';
export type * from './store.js';
export type * from './workers.js';
