import { invalidRequest } from '../errors.js';

/**
 * Headers that carry credentials (or signatures over them) are never a delivery ID: the value would
 * be copied into the delivery log, readable without the secret, and one credential would make
 * every later delivery a duplicate. Refused by name (docs/webhooks.md, "Delivery IDs").
 */
const CREDENTIAL_HEADER = /authorization|cookie|signature|token|secret|password|passwd|api[-_]?key|hmac|credential|session/i;

/** Refuse a webhook's `delivery_id_header`, on create or change, that names a credential header. */
export function refuseCredentialHeader(name: string): void {
  if (CREDENTIAL_HEADER.test(name)) {
    throw invalidRequest(
      `invalid webhook: delivery_id_header: ${name} carries credentials or signatures; name a header that holds only the event's ID (such as X-Event-Id)`,
    );
  }
}
