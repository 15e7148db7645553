import type { Principal } from '../auth/principal.js';
import { applyDefinitions } from '../definitions/apply.js';
import type { ApplyResult } from '../definitions/wire.js';
import { createEnvironment, deleteEnvironment, getEnvironment, listEnvironments, replaceEnvironment } from '../environments/service.js';
import type { AgentRunEvents } from '../events.js';
import { createAgentIdentity, deleteAgentIdentity, listAgentIdentities, updateAgentIdentity } from '../identities/service.js';
import { createDeliveryRuns, type DeliveryRuns } from '../ingress/delivery-runs.js';
import { SkillCatalog } from '../skills/skill-catalog.js';
import { deleteSource, getSource, listSourceApplies, putSource, syncSourceNow } from '../sources/management.js';
import { receivePush } from '../sources/push.js';
import { SourceSyncer } from '../sources/syncer.js';
import type { Store } from '../store/store.js';
import { type Clock, systemClock } from '../util/clock.js';
import { createVerifierRegistry, type VerifierRegistry } from '../verify/registry.js';
import { createAutomation, deleteAutomation, getAutomation, listAutomations, patchAutomation } from './automations.js';
import { getClientFactory, listClientFactories } from './client-factories.js';
import type { ControlContext } from './control-context.js';
import { getDelivery, getDeliveryPayload, listDeliveries } from './deliveries.js';
import { createFactory, getFactory, listFactories } from './factories.js';
import { type ResendDeps, resendDelivery } from './resend-delivery.js';
import { answeringCipher, type SecretCipher } from './secret-cipher.js';
import { deleteSecret, listSecrets, putSecret } from './team-secrets.js';
import { testFilter } from './test-filter.js';
import type { SecretView } from './views.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  patchWebhook,
  putProviderSecret,
  rotateSecret,
  type WebhookWithSecret,
} from './webhooks.js';

export type { WebhookWithSecret } from './webhooks.js';

export interface ControlServiceOptions {
  store: Store;
  cipher: SecretCipher;
  clock?: Clock;
  /** Base of ingress URLs; `undefined`: the origin of the request that asks. */
  webhookBaseUrl?: string;
  /** Default 20 (docs/management-api.md, "Webhooks"). */
  maxWebhooksPerFactory?: number;
  /** Where automations' skill specs resolve; default: none, so an automation with a skill is a 400. */
  skills?: SkillCatalog;
  /** Which runs a resent delivery starts: the ingress's decider (createAgentRun shares it); default: one of this service's own. */
  deliveryRuns?: DeliveryRuns;
  /** Told of the runs a resend starts (`run.created`), as the ingress tells of its own. */
  events?: AgentRunEvents;
  /** What push notifications of factory sources are verified with; default: the built-in verifiers. */
  verifiers?: VerifierRegistry;
  /** Where background work's failures go (a source sync's, a resend's audit event); default: the console for resends, dropped for syncs. */
  onError?: (error: unknown) => void;
}

/**
 * The management operations of docs/management-api.md (the dashboard's, over HTTP): factories, team
 * secrets, webhooks and automations. Reads need a principal of the team; every change also needs
 * `manage_factory`. Secret values are sealed before they reach the store and never returned, except
 * a generated one, once, in the answer that created it. Each resource's operations live in their
 * own module (control-context.ts lists them); this class is their one public face.
 */
export class ControlService {
  private readonly ctx: ControlContext;
  private readonly resend: ResendDeps;
  readonly maxWebhooksPerFactory: number;
  private readonly verifiers: VerifierRegistry;
  /** This process's syncs of factory sources (sources/syncer.ts). */
  private readonly sources: SourceSyncer;

  constructor(options: ControlServiceOptions) {
    this.maxWebhooksPerFactory = options.maxWebhooksPerFactory ?? 20;
    this.ctx = {
      store: options.store,
      cipher: answeringCipher(options.cipher),
      clock: options.clock ?? systemClock,
      baseUrl: options.webhookBaseUrl?.replace(/\/+$/, ''),
      maxWebhooksPerFactory: this.maxWebhooksPerFactory,
      skills: options.skills ?? new SkillCatalog(options.store, options.cipher, undefined),
    };
    const onError = options.onError ?? ((error: unknown) => console.error('[agentrun] resend', error));
    this.resend = {
      deliveryRuns: options.deliveryRuns ?? createDeliveryRuns({ skills: this.ctx.skills, onError }),
      events: options.events,
      onError,
    };
    this.verifiers = options.verifiers ?? createVerifierRegistry();
    this.sources = new SourceSyncer(this.ctx, options.onError ?? (() => {}));
  }

  // ─────────────────────────────────────────────── factories (factories.ts)

  createFactory(p: Principal, input: unknown) {
    return createFactory(this.ctx, p, input);
  }

  listFactories(p: Principal) {
    return listFactories(this.ctx, p);
  }

  getFactory(p: Principal, factoryUid: string) {
    return getFactory(this.ctx, p, factoryUid);
  }

  /** `GET /factory` of the Python client (control/client-factories.ts). */
  listClientFactories(p: Principal, query: Record<string, unknown>, teamHeader: string | null) {
    return listClientFactories(this.ctx, p, query, teamHeader);
  }

  getClientFactory(p: Principal, factoryUid: string) {
    return getClientFactory(this.ctx, p, factoryUid);
  }

  // ─────────────────────────────────────────────── environments (environments/service.ts)

  createEnvironment(p: Principal, input: unknown) {
    return createEnvironment(this.ctx, p, input);
  }

  listEnvironments(p: Principal) {
    return listEnvironments(this.ctx, p);
  }

  getEnvironment(p: Principal, id: string) {
    return getEnvironment(this.ctx, p, id);
  }

  replaceEnvironment(p: Principal, id: string, input: unknown) {
    return replaceEnvironment(this.ctx, p, id, input);
  }

  deleteEnvironment(p: Principal, id: string) {
    return deleteEnvironment(this.ctx, p, id);
  }

  // ─────────────────────────────────────────────── agent identities (identities/service.ts)

  createAgentIdentity(p: Principal, input: unknown) {
    return createAgentIdentity(this.ctx, p, input);
  }

  listAgentIdentities(p: Principal, query: Record<string, unknown>) {
    return listAgentIdentities(this.ctx, p, query);
  }

  updateAgentIdentity(p: Principal, uid: string, input: unknown) {
    return updateAgentIdentity(this.ctx, p, uid, input);
  }

  deleteAgentIdentity(p: Principal, uid: string) {
    return deleteAgentIdentity(this.ctx, p, uid);
  }

  // ─────────────────────────────────────────────── team secrets (team-secrets.ts)

  putSecret(p: Principal, name: string, input: unknown): Promise<{ created: boolean; secret: SecretView }> {
    return putSecret(this.ctx, p, name, input);
  }

  listSecrets(p: Principal) {
    return listSecrets(this.ctx, p);
  }

  deleteSecret(p: Principal, name: string): Promise<void> {
    return deleteSecret(this.ctx, p, name);
  }

  // ─────────────────────────────────────────────── webhooks (webhooks.ts)

  createWebhook(p: Principal, factoryUid: string, input: unknown, requestOrigin: string): Promise<WebhookWithSecret> {
    return createWebhook(this.ctx, p, factoryUid, input, requestOrigin);
  }

  listWebhooks(p: Principal, factoryUid: string, requestOrigin: string) {
    return listWebhooks(this.ctx, p, factoryUid, requestOrigin);
  }

  getWebhook(p: Principal, factoryUid: string, uid: string, requestOrigin: string) {
    return getWebhook(this.ctx, p, factoryUid, uid, requestOrigin);
  }

  patchWebhook(p: Principal, factoryUid: string, uid: string, input: unknown, requestOrigin: string) {
    return patchWebhook(this.ctx, p, factoryUid, uid, input, requestOrigin);
  }

  deleteWebhook(p: Principal, factoryUid: string, uid: string): Promise<void> {
    return deleteWebhook(this.ctx, p, factoryUid, uid);
  }

  /** A new secret, shown once; the old one fails from this moment on. */
  rotateSecret(p: Principal, factoryUid: string, uid: string, input: unknown, requestOrigin: string): Promise<WebhookWithSecret> {
    return rotateSecret(this.ctx, p, factoryUid, uid, input, requestOrigin);
  }

  /** The second step for providers that issue their secret after they have the URL. */
  putProviderSecret(p: Principal, factoryUid: string, uid: string, input: unknown, requestOrigin: string) {
    return putProviderSecret(this.ctx, p, factoryUid, uid, input, requestOrigin);
  }

  // ─────────────────────────────────────────────── delivery log (deliveries.ts)

  /** A webhook's log, newest first, in keyset pages (deleted webhooks' logs stay readable). */
  listDeliveries(p: Principal, factoryUid: string, uid: string, input: Record<string, unknown>) {
    return listDeliveries(this.ctx, p, factoryUid, uid, input);
  }

  /** One entry; accepted entries add their payload (the JSON received). */
  getDelivery(p: Principal, factoryUid: string, uid: string, deliveryId: string) {
    return getDelivery(this.ctx, p, factoryUid, uid, deliveryId);
  }

  /** The exact bytes an accepted delivery carried. */
  getDeliveryPayload(p: Principal, factoryUid: string, uid: string, deliveryId: string): Promise<Uint8Array> {
    return getDeliveryPayload(this.ctx, p, factoryUid, uid, deliveryId);
  }

  /** Evaluate an accepted delivery again against today's automations (resend-delivery.ts). */
  resendDelivery(p: Principal, factoryUid: string, uid: string, deliveryId: string) {
    return resendDelivery(this.ctx, this.resend, p, factoryUid, uid, deliveryId);
  }

  // ─────────────────────────────────────────────── automations (automations.ts, test-filter.ts)

  createAutomation(p: Principal, factoryUid: string, input: unknown) {
    return createAutomation(this.ctx, p, factoryUid, input);
  }

  listAutomations(p: Principal, factoryUid: string) {
    return listAutomations(this.ctx, p, factoryUid);
  }

  getAutomation(p: Principal, factoryUid: string, id: string) {
    return getAutomation(this.ctx, p, factoryUid, id);
  }

  patchAutomation(p: Principal, factoryUid: string, id: string, input: unknown) {
    return patchAutomation(this.ctx, p, factoryUid, id, input);
  }

  deleteAutomation(p: Principal, factoryUid: string, id: string): Promise<void> {
    return deleteAutomation(this.ctx, p, factoryUid, id);
  }

  /** Would this automation start a run for this delivery? Both checks, and the first failing path. */
  testFilter(p: Principal, factoryUid: string, id: string, input: unknown) {
    return testFilter(this.ctx, p, factoryUid, id, input);
  }

  // ─────────────────────────────────────────────── definition files (definitions/apply.ts)

  /** Make the factory what its definition files say, as one operation (docs/definitions.md). */
  applyDefinitions(p: Principal, factoryUid: string, input: unknown, requestOrigin: string): Promise<ApplyResult> {
    return applyDefinitions(this.ctx, p, factoryUid, input, requestOrigin);
  }

  // ─────────────────────────────────────────────── factory sources (sources/)

  putSource(p: Principal, factoryUid: string, input: unknown, requestOrigin: string) {
    return putSource(this.ctx, p, factoryUid, input, requestOrigin);
  }

  getSource(p: Principal, factoryUid: string, requestOrigin: string) {
    return getSource(this.ctx, p, factoryUid, requestOrigin);
  }

  deleteSource(p: Principal, factoryUid: string): Promise<void> {
    return deleteSource(this.ctx, p, factoryUid);
  }

  listSourceApplies(p: Principal, factoryUid: string, query: Record<string, unknown>) {
    return listSourceApplies(this.ctx, p, factoryUid, query);
  }

  /** Fetch the factory's branch and apply its head now (`POST …/source/sync`). */
  syncSource(p: Principal, factoryUid: string) {
    return syncSourceNow(this.ctx, this.sources, p, factoryUid);
  }

  /** A push notification (`POST /webhooks/sources/{factoryUid}`): verified, it wakes the factory's sync. */
  receivePush(request: Request, factoryUid: string) {
    return receivePush(this.ctx, this.verifiers, this.sources, request, factoryUid);
  }

  /** Sync every factory source (the poll: a maintenance task); resolves to how many applied a commit. */
  pollSources(): Promise<number> {
    return this.sources.pollAll();
  }

  /** Resolves when no sync of this process runs (shutdown waits for it). */
  sourcesIdle(): Promise<void> {
    return this.sources.idle();
  }
}
