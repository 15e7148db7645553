import { invalidRequest } from '../errors.js';
import { resentFrom } from '../ingress/identity.js';
import type { DeliveryRecord } from '../ingress/records.js';
import { isStoredInstant } from '../models/timestamps.js';
import { isCursorId } from '../run/cursor.js';
import { base64UrlDecode, base64UrlEncode } from '../util/ids.js';

/**
 * A delivery log entry as the management API shows it (docs/management-api.md, "The delivery log").
 */
export const deliveryView = (d: DeliveryRecord) => ({
  delivery_id: d.id,
  identity: d.identity,
  size: d.size,
  received_at: d.receivedAt,
  status: d.status,
  // A resend's entry names the delivery it repeats (control/resend-delivery.ts).
  resent_from: resentFrom(d.identity),
  run_ids: d.runIds ? [...d.runIds] : null,
});

/** What an entry kept of its request, as the API shows it; `null` when it kept none. */
export const deliveryRequestView = (d: DeliveryRecord) =>
  d.request
    ? {
        headers: d.request.headers.map(([name, value]) => ({ name, value })),
        omitted_headers: d.request.omittedHeaders,
        remote_address: d.request.remoteAddress,
        user_agent: d.request.headers.find(([name]) => name === 'user-agent')?.[1] ?? null,
      }
    : null;

export const encodeDeliveryCursor = (position: { receivedAt: string; id: string }) =>
  base64UrlEncode(new TextEncoder().encode(JSON.stringify([position.receivedAt, position.id])));

export function decodeDeliveryCursor(text: string): { receivedAt: string; id: string } {
  try {
    const bytes = base64UrlDecode(text);
    const value: unknown = bytes ? JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) : undefined;
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && isStoredInstant(value[0]) && isCursorId(value[1])) {
      return { receivedAt: value[0], id: value[1] };
    }
  } catch {
    // fall through to the error below
  }
  throw invalidRequest('invalid cursor: not a cursor returned by this API');
}
