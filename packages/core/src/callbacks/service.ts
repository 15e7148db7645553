import { auditEvent } from '../audit/event.js';
import type { Principal } from '../auth/principal.js';
import { requireManage } from '../control/access.js';
import { generateStandardWebhooksSecret } from '../control/generated-secrets.js';
import type { SecretCipher } from '../control/secret-cipher.js';
import { conflict, invalidRequest, notFound } from '../errors.js';
import { ListDeliveriesQuerySchema } from '../models/requests.js';
import { parseOrThrow } from '../models/validate.js';
import type { CallbackEndpointPatch } from '../store/callbacks.js';
import type { Store } from '../store/store.js';
import { type Clock, isoTime } from '../util/clock.js';
import { newId } from '../util/ids.js';
import { keysetPage } from '../util/keyset-page.js';
import { callbackUrlProblem } from './address-policy.js';
import { type CallbackEndpointRecord, callbackSecretSlot } from './records.js';
import { CreateCallbackSchema, PatchCallbackSchema } from './schemas.js';
import { callbackDeliveryView, callbackView } from './views.js';

/** Endpoints a team may register (docs/callbacks.md, "Limits"). */
const MAX_CALLBACKS_PER_TEAM = 20;

export interface CallbackServiceOptions {
  store: Store;
  cipher: SecretCipher;
  clock: Clock;
  /** Let endpoints point at private addresses (tests, local use). Default false. */
  allowPrivateAddresses?: boolean;
}

/**
 * The callbacks API (docs/callbacks.md, "The API"): endpoints of the principal's team, their
 * delivery logs, resends, secret rotation. Reads need read_factory, changes manage_factory.
 */
export class CallbackService {
  constructor(private readonly o: CallbackServiceOptions) {}

  private now = () => isoTime(this.o.clock.now());

  private checkUrl(url: string): string {
    const problem = callbackUrlProblem(url, this.o.allowPrivateAddresses ?? false);
    if (problem) throw invalidRequest(`invalid callback: url: ${problem}`);
    return url;
  }

  private async require(p: Principal, id: string): Promise<CallbackEndpointRecord> {
    const endpoint = await this.o.store.callbacks.getEndpoint(p.team_uid, id);
    if (!endpoint) throw notFound(`callback ${id} not found`);
    return endpoint;
  }

  private seal = (teamUid: string, id: string, secret: string) => this.o.cipher.seal(secret, callbackSecretSlot(teamUid, id));

  async create(p: Principal, input: unknown) {
    requireManage(p);
    const body = parseOrThrow(CreateCallbackSchema, input, 'callback');
    const url = this.checkUrl(body.url);
    if (body.factory_uid !== undefined && !(await this.o.store.factories.get(p.team_uid, body.factory_uid)))
      throw invalidRequest(`invalid callback: factory_uid: no factory ${body.factory_uid} in this team`);
    const id = newId();
    const now = this.now();
    const secret = generateStandardWebhooksSecret();
    const record: CallbackEndpointRecord = {
      id,
      teamUid: p.team_uid,
      factoryUid: body.factory_uid ?? null,
      url,
      description: body.description ?? '',
      eventTypes: [...new Set(body.event_types ?? [])],
      secretCiphertext: await this.seal(p.team_uid, id, secret),
      enabled: true,
      disabledReason: null,
      failingSince: null,
      createdAt: now,
      updatedAt: now,
    };
    const audit = auditEvent(p, 'callback.created', { type: 'callback', id, factoryUid: record.factoryUid }, now, { url });
    const result = await this.o.store.callbacks.createEndpoint(record, MAX_CALLBACKS_PER_TEAM, audit);
    if (!result.created) throw conflict(`the team already has ${MAX_CALLBACKS_PER_TEAM} callbacks, the most it may have`);
    return { callback: callbackView(record), secret };
  }

  async list(p: Principal) {
    return { callbacks: (await this.o.store.callbacks.listEndpoints(p.team_uid)).map(callbackView) };
  }

  async get(p: Principal, id: string) {
    return callbackView(await this.require(p, id));
  }

  async patch(p: Principal, id: string, input: unknown) {
    requireManage(p);
    const body = parseOrThrow(PatchCallbackSchema, input, 'callback change');
    await this.require(p, id);
    const patch: CallbackEndpointPatch = {
      ...(body.url !== undefined ? { url: this.checkUrl(body.url) } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.event_types !== undefined ? { eventTypes: [...new Set(body.event_types)] } : {}),
      // Enabling starts the failing rule over; disabling by hand says so.
      ...(body.enabled === true ? { enabled: true, disabledReason: null, failingSince: null } : {}),
      ...(body.enabled === false ? { enabled: false, disabledReason: 'manual' as const } : {}),
    };
    const now = this.now();
    const detail = {
      ...(body.url !== undefined ? { url: body.url } : {}),
      ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
      ...(body.event_types !== undefined ? { event_types: body.event_types.join(' ') } : {}),
    };
    const updated = await this.o.store.callbacks.updateEndpoint(
      p.team_uid,
      id,
      patch,
      now,
      auditEvent(p, 'callback.updated', { type: 'callback', id }, now, detail),
    );
    if (!updated) throw notFound(`callback ${id} not found`);
    return callbackView(updated);
  }

  async delete(p: Principal, id: string): Promise<void> {
    requireManage(p);
    const now = this.now();
    const gone = await this.o.store.callbacks.deleteEndpoint(
      p.team_uid,
      id,
      auditEvent(p, 'callback.deleted', { type: 'callback', id }, now),
    );
    if (!gone) throw notFound(`callback ${id} not found`);
  }

  /** A new secret, shown once; deliveries signed from now on use it (retries of older events too). */
  async rotateSecret(p: Principal, id: string) {
    requireManage(p);
    await this.require(p, id);
    const secret = generateStandardWebhooksSecret();
    const now = this.now();
    const updated = await this.o.store.callbacks.updateEndpoint(
      p.team_uid,
      id,
      { secretCiphertext: await this.seal(p.team_uid, id, secret) },
      now,
      auditEvent(p, 'callback.rotated', { type: 'callback', id }, now),
    );
    if (!updated) throw notFound(`callback ${id} not found`);
    return { callback: callbackView(updated), secret };
  }

  async listDeliveries(p: Principal, id: string, query: Record<string, unknown>) {
    const { limit, cursor } = parseOrThrow(ListDeliveriesQuerySchema, query, 'query');
    await this.require(p, id);
    const before = cursor === undefined ? undefined : decodeCursor(cursor);
    const rows = await this.o.store.callbacks.listDeliveries(p.team_uid, id, {
      limit: limit + 1,
      ...(before !== undefined ? { before } : {}),
    });
    const { page, pageInfo } = keysetPage(rows, limit, (last) => `d${last.seq}`);
    return { deliveries: page.map(callbackDeliveryView), page_info: pageInfo };
  }

  /** Send a logged delivery again, with the same `webhook-id`, in a new retry window. */
  async resend(p: Principal, id: string, deliveryId: string) {
    requireManage(p);
    await this.require(p, id);
    const now = this.now();
    const audit = auditEvent(p, 'callback.resent', { type: 'callback', id }, now, { delivery_id: deliveryId });
    const outcome = await this.o.store.callbacks.resend(p.team_uid, id, deliveryId, now, audit);
    if (outcome === 'absent') throw notFound(`delivery ${deliveryId} not found`);
    if (outcome === 'pending') throw conflict(`delivery ${deliveryId} is still being delivered; resend it once it has succeeded or failed`);
    const delivery = await this.o.store.callbacks.getDelivery(p.team_uid, id, deliveryId);
    if (!delivery) throw notFound(`delivery ${deliveryId} not found`);
    return callbackDeliveryView(delivery);
  }
}

/** `d<seq>`: the delivery log's cursor. */
function decodeCursor(cursor: string): number {
  const match = /^d(\d{1,15})$/.exec(cursor);
  if (!match) throw invalidRequest('invalid query: cursor: not a cursor of this list');
  return Number(match[1]);
}
