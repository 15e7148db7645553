/**
 * What an answered delivery adds to its request's log line (docs/operations.md, "Logging"): its
 * ID, and whether it was a duplicate. Identifiers only. Its runs are made after the answer
 * (docs/webhooks.md, "When runs start"), so the line cannot name them; each run names its
 * delivery (`trigger.delivery_id`).
 */
export function deliveryLogFields(deliveryId: string, accepted: boolean): Record<string, string> {
  return accepted ? { delivery_id: deliveryId } : { delivery_id: deliveryId, outcome: 'duplicate' };
}
