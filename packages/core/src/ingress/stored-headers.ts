import { isCredentialHeader } from '../control/delivery-id-header.js';
import { utf8Length } from '../util/utf8-length.js';
import { type DeliveryRequest, MASKED_VALUE } from './records.js';

// What an accepted delivery keeps of its request's headers (docs/webhooks.md, "What a delivery
// keeps"): masked before the store sees them, so no secret is ever at rest, and bounded, so a
// sender cannot grow the log past its body limit with headers.

/** The most headers kept per delivery; the rest are counted as omitted. */
export const MAX_STORED_HEADERS = 64;
/** The most bytes (UTF-8 names plus values) kept per delivery; a header past them is omitted. */
export const MAX_STORED_HEADER_BYTES = 8192;

/**
 * Names that look like they carry a key beyond those a delivery ID header may not be
 * (control/delivery-id-header.ts): a stored header is masked on suspicion.
 */
const KEY_LIKE = /key|jwt|bearer/i;

/** What else to mask for one webhook: its verifier's named headers and its own secret's value. */
export interface MaskingRules {
  /** Header names (any case) the webhook's verifier reads a secret or a proof from. */
  secretHeaders?: readonly string[] | undefined;
  /** The webhook's secret: any value holding it is masked, whatever the header's name. */
  secret?: string | undefined;
}

/** Whether a header's value must not be stored (`name` in lower case, as `Headers` gives it). */
function isSecretHeader(name: string, value: string, rules: MaskingRules): boolean {
  if (isCredentialHeader(name) || KEY_LIKE.test(name)) return true;
  if (rules.secretHeaders?.some((h) => h.toLowerCase() === name)) return true;
  return rules.secret !== undefined && rules.secret !== '' && value.includes(rules.secret);
}

/**
 * The headers to keep, secrets masked, within the bounds; `remoteAddress` as the adapter gave it.
 * Masking comes first: a value is measured (and so kept or omitted) as stored, never as sent.
 */
export function storedRequest(headers: Headers, remoteAddress: string | undefined, rules: MaskingRules): DeliveryRequest {
  const kept: (readonly [string, string])[] = [];
  let bytes = 0;
  let omittedHeaders = 0;
  for (const [name, sent] of headers) {
    const value = isSecretHeader(name, sent, rules) ? MASKED_VALUE : sent;
    const size = utf8Length(name) + utf8Length(value);
    if (kept.length >= MAX_STORED_HEADERS || bytes + size > MAX_STORED_HEADER_BYTES) {
      omittedHeaders++;
      continue;
    }
    bytes += size;
    kept.push([name, value]);
  }
  return { headers: kept, omittedHeaders, remoteAddress: remoteAddress ?? null };
}
