/**
 * The labels of the delivery log (docs/management-api.md, "The delivery log"), exactly as the
 * dashboard shows them.
 */
export const DELIVERY_STATUSES = ['Accepted', 'Duplicate', 'Rejected (auth)', 'Rejected (invalid JSON)', 'Rejected (too large)'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One entry of a webhook's delivery log. Only accepted entries keep their payload. */
export interface DeliveryRecord {
  /** Returned to the sender as `delivery_id`. */
  id: string;
  teamUid: string;
  factoryUid: string;
  webhookUid: string;
  /**
   * The delivery identity (docs/webhooks.md, "Delivery IDs and duplicates"); `null` for entries
   * rejected before one was computed.
   */
  identity: string | null;
  /** Bytes received (for a body over the limit: the bytes read before reading stopped). */
  size: number;
  receivedAt: string;
  status: DeliveryStatus;
  /** The exact bytes received, for `Accepted` entries; `null` otherwise. */
  payload: Uint8Array | null;
  /**
   * The request an accepted delivery came in, as kept for its page (docs/webhooks.md, "What a
   * delivery keeps"): absent for every other entry and for a resend, which no request brought.
   */
  request?: DeliveryRequest;
  /**
   * The runs an accepted delivery started, once its evaluation completed (none: it matched
   * nothing); absent while it awaits evaluation, and for every entry not accepted.
   */
  runIds?: readonly string[];
}

/** What an accepted delivery keeps of its request, secrets already masked (ingress/stored-headers.ts). */
export interface DeliveryRequest {
  /** Header names (lower case) and values, in the order received; a secret's value is {@link MASKED_VALUE}. */
  headers: readonly (readonly [string, string])[];
  /** Headers left out by the bounds (count and bytes). */
  omittedHeaders: number;
  /** The peer's address as the adapter saw it (no proxy header is trusted); `null` when it gave none. */
  remoteAddress: string | null;
}

/** What a masked header's value is stored as. */
export const MASKED_VALUE = '[masked]';
