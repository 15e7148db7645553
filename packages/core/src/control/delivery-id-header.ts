/**
 * Headers that carry credentials (or signatures over them) are never a delivery ID: the value would
 * be copied into the delivery log, readable without the secret, and one credential would make
 * every later delivery a duplicate. Refused by name, any case, wherever a name contains one of
 * these words (docs/management-api.md, `delivery_id_header`): `auth` covers `Authorization`,
 * `X-Auth-Token`, `X-Auth-Key` alike.
 */
const CREDENTIAL_HEADER = /auth|cookie|signature|token|secret|passw(?:or)?d|api[-_]?key|hmac|credential|session/i;

/** Whether `name` is refused as a webhook's `delivery_id_header`: the one decider, used by every schema that takes one. */
export const isCredentialHeader = (name: string): boolean => CREDENTIAL_HEADER.test(name);

export const CREDENTIAL_HEADER_REFUSAL =
  "carries credentials or signatures; name a header that holds only the event's ID (such as X-Event-Id)";
