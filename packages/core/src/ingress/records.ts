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
}
