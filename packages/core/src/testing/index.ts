/**
 * Test helpers for agentrun and for stores written by others. Imports vitest: use it from tests only.
 */

export { type AgentIdentitiesConformanceOptions, describeAgentIdentitiesConformance } from './agent-identities-conformance.js';
export { type ArtifactsHttpConformanceOptions, describeArtifactsHttpConformance, PNG_BYTES } from './artifacts-http-conformance.js';
export { describeAuditConformance, makeAuditEvent } from './audit-conformance.js';
export { describeBlobStoreConformance } from './blob-store-conformance.js';
export { type CallbacksConformanceOptions, describeCallbacksConformance } from './callbacks-conformance.js';
export { makeAutomation, makeFactory, makeSecret, makeWebhook } from './control-plane-conformance.js';
export { type DefinitionsConformanceOptions, describeDefinitionsConformance } from './definitions-conformance.js';
export { makeEnvironment, seedEnvironments } from './environment-fixtures.js';
export { describeEnvironmentsConformance, type EnvironmentsConformanceOptions } from './environments-conformance.js';
export {
  FAKE_SKILL_COMMIT,
  type FakeRepository,
  type FakeRepositoryReader,
  fakeRepositoryReader,
  fakeSkillRepositories,
} from './fake-repository-reader.js';
export { makeRun, testPrincipal } from './fixtures.js';
export { describeHttpConformance, type HttpConformanceOptions } from './http-conformance.js';
export { makeDelivery } from './ingress-conformance.js';
export { describeNotificationsConformance, type NotificationsConformanceOptions } from './notifications-conformance.js';
export { describeRunEventsHttpConformance, type RunEventsHttpConformanceOptions } from './run-events-http-conformance.js';
export { describeSchedulesConformance, type SchedulesConformanceOptions } from './schedules-conformance.js';
export { describeStoreConformance, type StoreConformanceOptions } from './store-conformance.js';
