import type { Principal } from '../auth/principal.js';
import { conflict, notFound } from '../errors.js';
import type { DeliveryRecord } from '../ingress/records.js';
import { ListDeliveriesQuerySchema } from '../models/requests.js';
import { parseOrThrow } from '../models/validate.js';
import { keysetPage } from '../util/keyset-page.js';
import { requireFactory } from './access.js';
import type { ControlContext } from './control-context.js';
import { decodeDeliveryCursor, deliveryRequestView, deliveryView, encodeDeliveryCursor } from './delivery-views.js';

/**
 * The delivery log (docs/management-api.md, "The delivery log"). Deleted webhooks' logs stay
 * readable, so these look a webhook up without asking that it be live.
 */

/** A webhook's log, newest first, in keyset pages. */
export async function listDeliveries(ctx: ControlContext, p: Principal, factoryUid: string, uid: string, input: Record<string, unknown>) {
  const { limit, cursor } = parseOrThrow(ListDeliveriesQuerySchema, input, 'query');
  await requireFactory(ctx, p, factoryUid);
  const webhook = await ctx.store.webhooks.get(p.team_uid, factoryUid, uid);
  if (!webhook) throw notFound(`webhook ${uid} not found in factory ${factoryUid}`);
  const after = cursor === undefined ? undefined : decodeDeliveryCursor(cursor);
  const rows = await ctx.store.deliveries.list(p.team_uid, uid, { limit: limit + 1, ...(after ? { after } : {}) });
  const { page, pageInfo } = keysetPage(rows, limit, (last) => encodeDeliveryCursor({ receivedAt: last.receivedAt, id: last.id }));
  return { deliveries: page.map(deliveryView), page_info: pageInfo };
}

/** One entry; accepted entries add their payload (the JSON received) and what they kept of their request. */
export async function getDelivery(ctx: ControlContext, p: Principal, factoryUid: string, uid: string, deliveryId: string) {
  const delivery = await requireDelivery(ctx, p, factoryUid, uid, deliveryId);
  return {
    ...deliveryView(delivery),
    ...(delivery.payload ? { payload: payloadJson(delivery.payload) } : {}),
    request: deliveryRequestView(delivery),
  };
}

/**
 * The exact bytes an accepted delivery carried. `payload` in the entry above is the same JSON
 * parsed and written out again, which rounds big numbers and rewrites spellings (`1.50`);
 * this is the body as received, byte for byte (docs/management-api.md, "The delivery log").
 */
export async function getDeliveryPayload(
  ctx: ControlContext,
  p: Principal,
  factoryUid: string,
  uid: string,
  deliveryId: string,
): Promise<Uint8Array> {
  return acceptedPayload(await requireDelivery(ctx, p, factoryUid, uid, deliveryId));
}

/** A stored delivery of any webhook of the factory, deleted ones included (docs/management-api.md). */
export async function findDelivery(
  ctx: ControlContext,
  p: Principal,
  factoryUid: string,
  deliveryId: string,
): Promise<DeliveryRecord | undefined> {
  const found = await ctx.store.deliveries.find(p.team_uid, deliveryId);
  return found?.factoryUid === factoryUid ? found : undefined;
}

/** The body an entry kept: only accepted deliveries keep theirs, any other is a 409. */
export function acceptedPayload(delivery: DeliveryRecord): Uint8Array {
  if (!delivery.payload) throw conflict(`delivery ${delivery.id} is ${delivery.status}: only accepted deliveries keep their payload`);
  return delivery.payload;
}

/** A kept body as JSON: the ingress accepted only JSON bodies, so it parses. */
export const payloadJson = (payload: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(payload));

/** An entry of a webhook of the factory (the caller's team), or a 404. */
export async function requireDelivery(
  ctx: ControlContext,
  p: Principal,
  factoryUid: string,
  uid: string,
  deliveryId: string,
): Promise<DeliveryRecord> {
  await requireFactory(ctx, p, factoryUid);
  const delivery = await ctx.store.deliveries.get(p.team_uid, uid, deliveryId);
  if (!delivery || delivery.factoryUid !== factoryUid) throw notFound(`delivery ${deliveryId} not found`);
  return delivery;
}
