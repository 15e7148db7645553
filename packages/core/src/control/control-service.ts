import type * as v from 'valibot';
import { hasPermission, PERMISSIONS, type Principal } from '../auth/principal.js';
import { AgentRunError, conflict, invalidRequest, notFound } from '../errors.js';
import { explainFilter, parseFilter } from '../filter/index.js';
import { ListDeliveriesQuerySchema } from '../models/requests.js';
import { parseOrThrow } from '../models/validate.js';
import type { Store } from '../store/store.js';
import { type Clock, isoTime, systemClock } from '../util/clock.js';
import { newId } from '../util/ids.js';
import { decodeDeliveryCursor, deliveryView, encodeDeliveryCursor } from './delivery-views.js';
import { generateStandardWebhooksSecret, generateToken, isUrlSafe } from './generated-secrets.js';
import type { AutomationRecord, FactoryRecord, SecretRecord, WebhookRecord, WebhookTrigger } from './records.js';
import {
  CreateAutomationSchema,
  CreateFactorySchema,
  CreateWebhookSchema,
  PatchAutomationSchema,
  PatchWebhookSchema,
  ProviderSecretSchema,
  PutSecretSchema,
  SecretNameSchema,
  TestFilterSchema,
} from './schemas.js';
import { type SecretCipher, secretSlot } from './secret-cipher.js';
import { automationView, factoryView, type SecretView, secretView, type WebhookView, webhookView } from './views.js';

export interface ControlServiceOptions {
  store: Store;
  cipher: SecretCipher;
  clock?: Clock;
  /** Base of ingress URLs; `undefined`: the origin of the request that asks. */
  webhookBaseUrl?: string;
  /** Default 20 (seed §8). */
  maxWebhooksPerFactory?: number;
}

/** The answer to creating a webhook or rotating its secret: the secret appears here only. */
export interface WebhookWithSecret {
  webhook: WebhookView;
  ingress_url: string;
  secret?: string;
}

/**
 * The management operations of contract §8 (the dashboard's, over HTTP): factories, team secrets,
 * webhooks and automations. Reads need a principal of the team; every change also needs
 * `manage_factory`. Secret values are sealed before they reach the store and never returned,
 * except a generated one, once, in the answer that created it.
 */
export class ControlService {
  private readonly store: Store;
  private readonly cipher: SecretCipher;
  private readonly clock: Clock;
  private readonly baseUrl: string | undefined;
  readonly maxWebhooksPerFactory: number;

  constructor(options: ControlServiceOptions) {
    this.store = options.store;
    this.cipher = options.cipher;
    this.clock = options.clock ?? systemClock;
    this.baseUrl = options.webhookBaseUrl?.replace(/\/+$/, '');
    this.maxWebhooksPerFactory = options.maxWebhooksPerFactory ?? 20;
  }

  // ─────────────────────────────────────────────── factories

  async createFactory(p: Principal, input: unknown) {
    requireManage(p);
    const body = parseOrThrow(CreateFactorySchema, input, 'factory');
    if (
      body.foreman_agent_identity_uid !== undefined &&
      (await this.store.factories.findByForeman(p.team_uid, body.foreman_agent_identity_uid))
    ) {
      throw conflict(`another factory of this team already has foreman ${body.foreman_agent_identity_uid}`);
    }
    const now = this.now();
    const record: FactoryRecord = {
      uid: newId(),
      teamUid: p.team_uid,
      name: body.name,
      foremanAgentIdentityUid: body.foreman_agent_identity_uid ?? null,
      createdAt: now,
      updatedAt: now,
    };
    await this.store.factories.create(record);
    return factoryView(record);
  }

  async listFactories(p: Principal) {
    return { factories: (await this.store.factories.list(p.team_uid)).map(factoryView) };
  }

  async getFactory(p: Principal, factoryUid: string) {
    return factoryView(await this.requireFactory(p, factoryUid));
  }

  // ─────────────────────────────────────────────── team secrets

  async putSecret(p: Principal, name: string, input: unknown): Promise<{ created: boolean; secret: SecretView }> {
    requireManage(p);
    const secretName = parseOrThrow(SecretNameSchema, name, 'secret name');
    const { value } = parseOrThrow(PutSecretSchema, input, 'secret');
    // Every live webhook that uses this secret must still be able to match it (seed 7.3).
    for (const factory of await this.store.factories.list(p.team_uid)) {
      for (const w of await this.store.webhooks.list(p.team_uid, factory.uid)) {
        const problem = w.secretName === secretName && w.deletedAt === null ? secretUnfitFor(w.authMode, value) : undefined;
        if (problem)
          throw invalidRequest(`invalid secret: value: webhook ${w.uid} (${w.name}) uses this secret, and the new value ${problem}`);
      }
    }
    const record = await this.sealed(p.team_uid, secretName, value);
    const { created } = await this.store.secrets.put(record);
    const stored = (await this.store.secrets.get(p.team_uid, secretName)) ?? record;
    return { created, secret: secretView(stored) };
  }

  async listSecrets(p: Principal) {
    return { secrets: (await this.store.secrets.list(p.team_uid)).map(secretView) };
  }

  async deleteSecret(p: Principal, name: string): Promise<void> {
    requireManage(p);
    // A live webhook's credential must not vanish under it: that would lock its senders out silently.
    for (const factory of await this.store.factories.list(p.team_uid)) {
      const user = (await this.store.webhooks.list(p.team_uid, factory.uid)).find((w) => w.secretName === name);
      if (user) throw conflict(`secret ${name} is used by webhook ${user.uid} (${user.name}); delete that webhook first`);
    }
    if (!(await this.store.secrets.delete(p.team_uid, name))) throw notFound(`no team secret named ${name}`);
  }

  // ─────────────────────────────────────────────── webhooks

  async createWebhook(p: Principal, factoryUid: string, input: unknown, requestOrigin: string): Promise<WebhookWithSecret> {
    requireManage(p);
    const body = parseOrThrow(CreateWebhookSchema, input, 'webhook');
    if (body.delivery_id_header !== undefined) refuseCredentialHeader(body.delivery_id_header);
    await this.requireFactory(p, factoryUid);
    const now = this.now();
    const uid = newId();

    // Where the credential comes from: a team secret named by the caller (reused, never shown), a
    // provider secret the caller supplies (never shown), or one generated here (shown once).
    let secretName = body.secret_name;
    let value: string | undefined;
    let shown: string | undefined;
    if (secretName !== undefined) {
      const existing = await this.store.secrets.get(p.team_uid, secretName);
      if (!existing)
        throw invalidRequest(
          `invalid webhook: secret_name: no team secret named ${secretName}; create it first (PUT /team/secrets/${secretName})`,
        );
      const problem = secretUnfitFor(body.auth_mode, await this.cipher.open(existing.ciphertext, secretSlot(p.team_uid, secretName)));
      if (problem) throw invalidRequest(`invalid webhook: secret_name: secret ${secretName} ${problem}`);
    } else {
      secretName = suggestedSecretName(body.name, uid);
      if (body.provider_secret !== undefined) value = body.provider_secret;
      else if (body.auth_mode !== 'signature') value = shown = generateToken();
      else if (body.signature_scheme === 'standard-webhooks') value = shown = generateStandardWebhooksSecret();
      // Otherwise the provider issues the secret after it has the URL: none yet, so all fail closed.
    }

    const webhook: WebhookRecord = {
      uid,
      teamUid: p.team_uid,
      factoryUid,
      name: body.name,
      authMode: body.auth_mode,
      signatureScheme: body.signature_scheme ?? null,
      secretName,
      deliveryIdHeader: body.delivery_id_header ?? null,
      enabled: true,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    };
    const secret = value === undefined ? undefined : await this.sealed(p.team_uid, secretName, value);
    const result = await this.store.webhooks.create({ webhook, ...(secret ? { secret } : {}), maxPerFactory: this.maxWebhooksPerFactory });
    if (!result.created) {
      if (result.reason === 'limit')
        throw conflict(`factory ${factoryUid} already has ${this.maxWebhooksPerFactory} webhooks, the most it may have`);
      throw conflict(`a team secret named ${secretName} already exists; name it with secret_name to reuse it`);
    }
    const origin = this.baseUrl ?? requestOrigin;
    return {
      webhook: webhookView(webhook, origin),
      ingress_url: webhookView(webhook, origin, webhook.authMode === 'url_token' ? shown : undefined).ingress_url,
      ...(shown !== undefined ? { secret: shown } : {}),
    };
  }

  async listWebhooks(p: Principal, factoryUid: string, requestOrigin: string) {
    await this.requireFactory(p, factoryUid);
    const origin = this.baseUrl ?? requestOrigin;
    return { webhooks: (await this.store.webhooks.list(p.team_uid, factoryUid)).map((w) => webhookView(w, origin)) };
  }

  async getWebhook(p: Principal, factoryUid: string, uid: string, requestOrigin: string) {
    return webhookView(await this.requireWebhook(p, factoryUid, uid), this.baseUrl ?? requestOrigin);
  }

  async patchWebhook(p: Principal, factoryUid: string, uid: string, input: unknown, requestOrigin: string) {
    requireManage(p);
    const patch = parseOrThrow(PatchWebhookSchema, input, 'webhook change');
    if (typeof patch.delivery_id_header === 'string') refuseCredentialHeader(patch.delivery_id_header);
    await this.requireWebhook(p, factoryUid, uid);
    const updated = await this.store.webhooks.update(
      p.team_uid,
      factoryUid,
      uid,
      {
        ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
        ...(patch.delivery_id_header !== undefined ? { deliveryIdHeader: patch.delivery_id_header } : {}),
      },
      this.now(),
    );
    if (!updated) throw notFound(`webhook ${uid} not found`);
    return webhookView(updated, this.baseUrl ?? requestOrigin);
  }

  async deleteWebhook(p: Principal, factoryUid: string, uid: string): Promise<void> {
    requireManage(p);
    await this.requireWebhook(p, factoryUid, uid);
    const now = this.now();
    if (!(await this.store.webhooks.update(p.team_uid, factoryUid, uid, { deletedAt: now }, now)))
      throw notFound(`webhook ${uid} not found`);
  }

  /**
   * A new secret, shown once; the old one fails from this moment on (seed 3.3). Generated for
   * tokens and Standard Webhooks; for a provider that issues its own signing secrets (Stripe,
   * GitHub, …) the request carries the provider's new one as `{ "secret": "…" }`.
   */
  async rotateSecret(p: Principal, factoryUid: string, uid: string, input: unknown, requestOrigin: string): Promise<WebhookWithSecret> {
    requireManage(p);
    const given = input === undefined ? undefined : parseOrThrow(ProviderSecretSchema, input, 'rotation').secret;
    const webhook = await this.requireWebhook(p, factoryUid, uid);
    const providerIssued = webhook.authMode === 'signature' && webhook.signatureScheme !== 'standard-webhooks';
    let value: string;
    if (providerIssued) {
      if (given === undefined)
        throw invalidRequest(
          `invalid rotation: secret: required: ${webhook.signatureScheme} issues its own signing secrets; create a new one there and send it here as { "secret": "…" }`,
        );
      value = given;
    } else {
      if (given !== undefined) throw invalidRequest("invalid rotation: secret: this webhook's secret is generated here; send no body");
      value = webhook.authMode === 'signature' ? generateStandardWebhooksSecret() : generateToken();
    }
    await this.store.secrets.put(await this.sealed(p.team_uid, webhook.secretName, value));
    const origin = this.baseUrl ?? requestOrigin;
    return {
      webhook: webhookView(webhook, origin),
      ingress_url: webhookView(webhook, origin, webhook.authMode === 'url_token' ? value : undefined).ingress_url,
      secret: value,
    };
  }

  /** The second step for providers that issue their secret after they have the URL. */
  async putProviderSecret(p: Principal, factoryUid: string, uid: string, input: unknown, requestOrigin: string) {
    requireManage(p);
    const { secret } = parseOrThrow(ProviderSecretSchema, input, 'provider secret');
    const webhook = await this.requireWebhook(p, factoryUid, uid);
    if (webhook.authMode !== 'signature')
      throw conflict(`webhook ${uid} uses ${webhook.authMode} authentication; only signature webhooks take a provider secret`);
    await this.store.secrets.put(await this.sealed(p.team_uid, webhook.secretName, secret));
    return webhookView(webhook, this.baseUrl ?? requestOrigin);
  }

  // ─────────────────────────────────────────────── delivery log

  /** A webhook's log, newest first, in keyset pages (deleted webhooks' logs stay readable). */
  async listDeliveries(p: Principal, factoryUid: string, uid: string, input: Record<string, unknown>) {
    const { limit, cursor } = parseOrThrow(ListDeliveriesQuerySchema, input, 'query');
    await this.requireFactory(p, factoryUid);
    const webhook = await this.store.webhooks.get(p.team_uid, factoryUid, uid);
    if (!webhook) throw notFound(`webhook ${uid} not found in factory ${factoryUid}`);
    const after = cursor === undefined ? undefined : decodeDeliveryCursor(cursor);
    const rows = await this.store.deliveries.list(p.team_uid, uid, { limit: limit + 1, ...(after ? { after } : {}) });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      deliveries: page.map(deliveryView),
      page_info:
        rows.length > limit && last
          ? { has_next_page: true, next_cursor: encodeDeliveryCursor({ receivedAt: last.receivedAt, id: last.id }) }
          : { has_next_page: false },
    };
  }

  /** One entry; accepted entries add their payload (the JSON received). */
  async getDelivery(p: Principal, factoryUid: string, uid: string, deliveryId: string) {
    await this.requireFactory(p, factoryUid);
    const delivery = await this.store.deliveries.get(p.team_uid, uid, deliveryId);
    if (!delivery || delivery.factoryUid !== factoryUid) throw notFound(`delivery ${deliveryId} not found`);
    return { ...deliveryView(delivery), ...(delivery.payload ? { payload: JSON.parse(new TextDecoder().decode(delivery.payload)) } : {}) };
  }

  /**
   * The exact bytes an accepted delivery carried. `payload` in the entry above is the same JSON
   * parsed and written out again, which rounds big numbers and rewrites spellings (`1.50`);
   * this is the body as received, byte for byte (docs/management-api.md, "The delivery log").
   */
  async getDeliveryPayload(p: Principal, factoryUid: string, uid: string, deliveryId: string): Promise<Uint8Array> {
    await this.requireFactory(p, factoryUid);
    const delivery = await this.store.deliveries.get(p.team_uid, uid, deliveryId);
    if (!delivery || delivery.factoryUid !== factoryUid) throw notFound(`delivery ${deliveryId} not found`);
    if (!delivery.payload) throw conflict(`delivery ${deliveryId} is ${delivery.status}: only accepted deliveries keep their payload`);
    return delivery.payload;
  }

  // ─────────────────────────────────────────────── automations

  async createAutomation(p: Principal, factoryUid: string, input: unknown) {
    requireManage(p);
    const body = parseOrThrow(CreateAutomationSchema, input, 'automation');
    await this.requireFactory(p, factoryUid);
    const now = this.now();
    const record: AutomationRecord = {
      id: newId(),
      teamUid: p.team_uid,
      factoryUid,
      name: body.name,
      prompt: body.prompt,
      enabled: body.enabled ?? true,
      config: body.config ?? null,
      triggers: await this.checkTriggers(p, factoryUid, body.triggers),
      createdAt: now,
      updatedAt: now,
    };
    await this.store.automations.create(record);
    return automationView(record);
  }

  async listAutomations(p: Principal, factoryUid: string) {
    await this.requireFactory(p, factoryUid);
    return { automations: (await this.store.automations.list(p.team_uid, factoryUid)).map(automationView) };
  }

  async getAutomation(p: Principal, factoryUid: string, id: string) {
    return automationView(await this.requireAutomation(p, factoryUid, id));
  }

  async patchAutomation(p: Principal, factoryUid: string, id: string, input: unknown) {
    requireManage(p);
    const patch = parseOrThrow(PatchAutomationSchema, input, 'automation change');
    const current = await this.requireAutomation(p, factoryUid, id);
    const next: AutomationRecord = {
      ...current,
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.prompt !== undefined ? { prompt: patch.prompt } : {}),
      ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
      ...(patch.config !== undefined ? { config: patch.config } : {}),
      ...(patch.triggers !== undefined ? { triggers: await this.checkTriggers(p, factoryUid, patch.triggers) } : {}),
      updatedAt: this.now(),
    };
    if (!(await this.store.automations.replace(next))) throw notFound(`automation ${id} not found`);
    return automationView(next);
  }

  async deleteAutomation(p: Principal, factoryUid: string, id: string): Promise<void> {
    requireManage(p);
    await this.requireFactory(p, factoryUid);
    if (!(await this.store.automations.delete(p.team_uid, factoryUid, id))) throw notFound(`automation ${id} not found`);
  }

  /** Would this automation start a run for this delivery? Both checks, and the first failing path. */
  async testFilter(p: Principal, factoryUid: string, id: string, input: unknown) {
    const automation = await this.requireAutomation(p, factoryUid, id);
    let body: { webhook_uid: string; payload: unknown };
    const parsed = parseOrThrow(TestFilterSchema, input, 'test');
    if ('delivery_id' in parsed) {
      // A stored delivery of any webhook of this factory; only accepted ones keep their payload.
      const found = await this.findDelivery(p, factoryUid, parsed.delivery_id);
      if (!found) throw notFound(`delivery ${parsed.delivery_id} not found in factory ${factoryUid}`);
      if (!found.payload) throw conflict(`delivery ${parsed.delivery_id} is ${found.status}: only accepted deliveries keep their payload`);
      body = { webhook_uid: found.webhookUid, payload: JSON.parse(new TextDecoder().decode(found.payload)) };
    } else {
      body = parsed;
    }
    const selecting = automation.triggers.filter((t) => t.filter.webhook_ids.includes(body.webhook_uid));
    // A selected webhook that was deleted or disabled receives nothing, so nothing fires (seed 3.3).
    const target = selecting.length > 0 ? await this.store.webhooks.get(p.team_uid, factoryUid, body.webhook_uid) : undefined;
    const live = target !== undefined && target.deletedAt === null && target.enabled;
    const webhookCheck = {
      passed: selecting.length > 0 && live,
      detail:
        selecting.length === 0
          ? `the automation does not select webhook ${body.webhook_uid} (it selects ${[...new Set(automation.triggers.flatMap((t) => t.filter.webhook_ids))].join(', ') || 'no webhook'})`
          : target === undefined || target.deletedAt !== null
            ? `the automation selects webhook ${body.webhook_uid}, but that webhook was deleted: it receives nothing`
            : !target.enabled
              ? `the automation selects webhook ${body.webhook_uid}, but that webhook is disabled: it answers 404 and starts nothing`
              : `the automation selects webhook ${body.webhook_uid}`,
    };
    // With several triggers on this webhook, any one matching is enough; report the first failure otherwise.
    const candidates = selecting.length > 0 ? selecting : automation.triggers;
    let payloadCheck = { passed: false, detail: 'the automation has no webhook trigger' };
    for (const trigger of candidates) {
      const outcome =
        trigger.filter.payload === undefined ? { matched: true as const } : explainFilter(trigger.filter.payload, body.payload);
      payloadCheck = outcome.matched
        ? {
            passed: true,
            detail: trigger.filter.payload === undefined ? 'no payload filter: every delivery matches' : 'the payload matches the filter',
          }
        : { passed: false, detail: `${outcome.path}: ${outcome.reason}` };
      if (outcome.matched) break;
    }
    return {
      result: webhookCheck.passed && payloadCheck.passed && automation.enabled ? 'Would trigger' : 'Would not trigger',
      webhook_check: webhookCheck,
      payload_check: payloadCheck,
      ...(automation.enabled ? {} : { note: 'the automation is disabled' }),
    };
  }

  // ─────────────────────────────────────────────── helpers

  /** Each trigger's webhooks must be live webhooks of this factory; each payload filter must be valid. */
  private async checkTriggers(
    p: Principal,
    factoryUid: string,
    triggers: v.InferOutput<typeof CreateAutomationSchema>['triggers'],
  ): Promise<WebhookTrigger[]> {
    const live = new Set((await this.store.webhooks.list(p.team_uid, factoryUid)).map((w) => w.uid));
    return triggers.map((t, i) => {
      t.filter.webhook_ids.forEach((uid, j) => {
        if (!live.has(uid))
          throw invalidRequest(`invalid automation: triggers.${i}.filter.webhook_ids.${j}: no webhook ${uid} in factory ${factoryUid}`);
      });
      const filter: WebhookTrigger['filter'] = { webhook_ids: [...new Set(t.filter.webhook_ids)] };
      if (t.filter.payload !== undefined && t.filter.payload !== null) {
        filter.payload = parseFilter(t.filter.payload, `triggers.${i}.filter.payload`) as Record<string, unknown>;
      }
      return { provider: 'webhook', event: 'received', filter };
    });
  }

  /** A stored delivery of any webhook of the factory, deleted ones included (docs/management-api.md). */
  private async findDelivery(p: Principal, factoryUid: string, deliveryId: string) {
    const found = await this.store.deliveries.find(p.team_uid, deliveryId);
    return found?.factoryUid === factoryUid ? found : undefined;
  }

  private async sealed(teamUid: string, name: string, value: string): Promise<SecretRecord> {
    const now = this.now();
    return { teamUid, name, ciphertext: await this.cipher.seal(value, secretSlot(teamUid, name)), createdAt: now, updatedAt: now };
  }

  private async requireFactory(p: Principal, factoryUid: string): Promise<FactoryRecord> {
    const factory = await this.store.factories.get(p.team_uid, factoryUid);
    if (!factory) throw notFound(`factory ${factoryUid} not found`);
    return factory;
  }

  private async requireWebhook(p: Principal, factoryUid: string, uid: string): Promise<WebhookRecord> {
    await this.requireFactory(p, factoryUid);
    const webhook = await this.store.webhooks.get(p.team_uid, factoryUid, uid);
    if (!webhook || webhook.deletedAt !== null) throw notFound(`webhook ${uid} not found in factory ${factoryUid}`);
    return webhook;
  }

  private async requireAutomation(p: Principal, factoryUid: string, id: string): Promise<AutomationRecord> {
    await this.requireFactory(p, factoryUid);
    const automation = await this.store.automations.get(p.team_uid, factoryUid, id);
    if (!automation) throw notFound(`automation ${id} not found in factory ${factoryUid}`);
    return automation;
  }

  private now(): string {
    return isoTime(this.clock.now());
  }
}

function requireManage(p: Principal): void {
  if (!hasPermission(p, PERMISSIONS.manageFactory)) {
    throw new AgentRunError('forbidden', 'this change needs the manage_factory permission');
  }
}

/** `webhook-<slug>-<8 chars of the uid>`: readable, and unique enough not to collide in a team. */
function suggestedSecretName(name: string, uid: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return `webhook-${slug || 'secret'}-${uid.replace(/-/g, '').slice(0, 8)}`;
}

/**
 * Why `value` cannot serve a webhook of `mode`, or undefined when it can: a bearer token must be
 * one header token (no spaces or control characters, else no `Authorization` header can carry
 * it), a URL token must be URL-safe (seed 7.3). Signature secrets are used as given.
 */
function secretUnfitFor(mode: WebhookRecord['authMode'], value: string): string | undefined {
  if (mode === 'url_token' && !isUrlSafe(value)) return 'is not URL-safe (A-Z a-z 0-9 - . _ ~ only), so it cannot be a url_token';
  if (mode === 'token' && !/^[\x21-\x7e]+$/.test(value))
    return 'has spaces or characters outside visible ASCII, so no Authorization: Bearer header can carry it';
  return undefined;
}

/**
 * Headers that carry credentials (or signatures over them) are never a delivery ID: the value would
 * be copied into the delivery log, readable without the secret, and one credential would make
 * every later delivery a duplicate. Refused by name (docs/webhooks.md, "Delivery IDs").
 */
const CREDENTIAL_HEADER = /authorization|cookie|signature|token|secret|password|passwd|api[-_]?key|hmac|credential|session/i;

function refuseCredentialHeader(name: string): void {
  if (CREDENTIAL_HEADER.test(name)) {
    throw invalidRequest(
      `invalid webhook: delivery_id_header: ${name} carries credentials or signatures; name a header that holds only the event's ID (such as X-Event-Id)`,
    );
  }
}
