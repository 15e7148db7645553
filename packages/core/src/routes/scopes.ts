import type { ApiKeyScope } from '../keys/scopes.js';
import type { RouteTable } from './table.js';

/** The operations a caller reaches with an API key. */
type ApiKeyOperation = { [K in keyof RouteTable]: RouteTable[K]['auth'] extends 'api_key' ? K : never }[keyof RouteTable];

/**
 * The scope each API-key route needs (docs/operations.md, "API keys"): one entry per route, by
 * type, so a new route cannot be added without saying what guards it. The HTTP surface checks it
 * with `allows` (keys/scopes.ts) before the operation runs; 403 otherwise.
 */
export const ROUTE_SCOPES: { [K in ApiKeyOperation]: ApiKeyScope } = {
  runAgent: 'write_runs',
  createRun: 'write_runs',
  listRuns: 'read_runs',
  getRun: 'read_runs',
  followupRun: 'write_runs',
  cancelRun: 'write_runs',
  getRunAttachment: 'read_runs',
  listRunEvents: 'read_runs',
  getRunTranscript: 'read_runs',
  checkSessionRedirect: 'read_runs',
  getArtifact: 'read_runs',
  listHarnesses: 'read_runs',
  // Who executes runs: as readable as the runs (each team sees only its own run ids).
  listWorkers: 'read_runs',
  createFactory: 'manage_factory',
  listFactories: 'read_factory',
  getFactory: 'read_factory',
  listSecrets: 'read_factory',
  putSecret: 'manage_factory',
  deleteSecret: 'manage_factory',
  createWebhook: 'manage_factory',
  listWebhooks: 'read_factory',
  getWebhook: 'read_factory',
  patchWebhook: 'manage_factory',
  deleteWebhook: 'manage_factory',
  rotateWebhookSecret: 'manage_factory',
  putProviderSecret: 'manage_factory',
  listDeliveries: 'read_factory',
  getDelivery: 'read_factory',
  getDeliveryPayload: 'read_factory',
  resendDelivery: 'manage_factory',
  createAutomation: 'manage_factory',
  listAutomations: 'read_factory',
  getAutomation: 'read_factory',
  patchAutomation: 'manage_factory',
  deleteAutomation: 'manage_factory',
  // Changes nothing: it asks whether a delivery would start a run.
  testFilter: 'read_factory',
  applyDefinitions: 'manage_factory',
  // Who changed what: as guarded as the changes themselves (docs/operations.md, "Audit").
  listAuditEvents: 'manage_factory',
  // Team repositories: read by any key of the team, changed with manage_factory (docs/repositories.md).
  createRepository: 'manage_factory',
  listRepositories: 'read_factory',
  getRepository: 'read_factory',
  deleteRepository: 'manage_factory',
  // The skills a team can run: as readable as its runs.
  listAgents: 'read_runs',
  createEnvironment: 'manage_factory',
  listEnvironments: 'read_factory',
  getEnvironment: 'read_factory',
  replaceEnvironment: 'manage_factory',
  deleteEnvironment: 'manage_factory',
  createAgentIdentity: 'manage_factory',
  listAgentIdentities: 'read_runs',
  updateAgentIdentity: 'manage_factory',
  deleteAgentIdentity: 'manage_factory',
  // A factory's source (docs/repositories.md, "Factories from a repository"): a sync applies, so it needs manage_factory.
  putFactorySource: 'manage_factory',
  getFactorySource: 'read_factory',
  deleteFactorySource: 'manage_factory',
  listFactorySourceApplies: 'read_factory',
  syncFactorySource: 'manage_factory',
  // A schedule is runs started later, in its saver's name: as guarded as starting them (docs/schedules.md).
  createSchedule: 'write_runs',
  listSchedules: 'read_runs',
  getSchedule: 'read_runs',
  updateSchedule: 'write_runs',
  deleteSchedule: 'write_runs',
  pauseSchedule: 'write_runs',
  resumeSchedule: 'write_runs',
  // Run-state callbacks (docs/callbacks.md): read with read_factory, changed with manage_factory.
  createCallback: 'manage_factory',
  listCallbacks: 'read_factory',
  getCallback: 'read_factory',
  patchCallback: 'manage_factory',
  deleteCallback: 'manage_factory',
  rotateCallbackSecret: 'manage_factory',
  listCallbackDeliveries: 'read_factory',
  resendCallbackDelivery: 'manage_factory',
  // The Python client's factories (docs/run-api.md): read as the management API's are; a dispatch starts a run.
  listHandoffAttachments: 'read_runs',
  listClientFactories: 'read_factory',
  listCloudEnvironments: 'read_factory',
  getClientFactory: 'read_factory',
  dispatchFactoryRun: 'write_runs',
  // The inbox is the team's runs seen as notifications: as readable as they are; a mark changes only the caller's own read state.
  listInbox: 'read_runs',
  markInboxRead: 'read_runs',
  markInboxUnread: 'read_runs',
  // The overview's numbers (docs/management-api.md, "Stats"): as readable as what they count.
  getRunStats: 'read_runs',
  getRunDurationStats: 'read_runs',
  getQueueStats: 'read_runs',
  getDeliveryStats: 'read_factory',
  getCallbackStats: 'read_factory',
  createApiKey: 'manage_keys',
  listApiKeys: 'manage_keys',
  revokeApiKey: 'manage_keys',
};

/** The scope a route needs, or `undefined` for a route without an API key. */
export const routeScope = (operation: string): ApiKeyScope | undefined => (ROUTE_SCOPES as Record<string, ApiKeyScope>)[operation];
