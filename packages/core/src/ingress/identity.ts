import stableStringify from 'fast-json-stable-stringify';
import { invalidRequest } from '../errors.js';
import { MAX_JSON_DEPTH } from '../http/body.js';
import { NOT_PLAIN, plainCanonicalJson, TOO_DEEP } from '../util/canonical-json.js';
import { sha256HexWith } from '../util/hash.js';
import { defaultSha256, type Sha256Port } from '../verify/crypto.js';

/**
 * Delivery identity (docs/webhooks.md, "Delivery IDs and duplicates"): the key under which a
 * webhook delivery is deduplicated. Pure: no Node built-ins, no clock, no randomness; the same
 * request always resolves to the same identity.
 */

/** Where an identity came from, in order of preference. */
type IdentitySource = 'configured_header' | 'provider' | 'vendor_header' | 'body_hash';

/**
 * `value` already carries its source as a prefix (`h:`, `p:`, `v:`, `sha256:`), so it can be
 * stored and compared as one string; `source` is kept alongside for logs and tests.
 */
export interface DeliveryIdentity {
  value: string;
  source: IdentitySource;
}

export interface ResolveDeliveryIdentityInput {
  headers: Headers;
  /** The webhook's Delivery ID header setting, if any. */
  configuredHeader: string | null;
  /** For signed webhooks: the provider's own delivery id, as the verifier reported it (or undefined). */
  providerDeliveryId: string | undefined;
  /** The parsed JSON body (already valid JSON). */
  body: unknown;
  /** SHA-256 for the body hash; default: node:crypto on Node, @noble elsewhere. */
  sha256?: Sha256Port;
}

/**
 * Longest sender-supplied id that counts, in UTF-16 code units (for header values, which are byte
 * strings, that is bytes). Identities are kept for days per webhook; an unbounded id would let a
 * sender grow the store by the size of a header per delivery. Real provider ids are far shorter
 * (GitHub's and Svix's are under 64).
 */
export const MAX_DELIVERY_ID_LENGTH = 256;

/**
 * Prefixes keep the sources apart: a sender whose `X-Acme-Delivery-Id` happens to equal another
 * delivery's body hash, or whose configured header repeats a provider id, must not be taken for
 * a duplicate of it. No prefix is a prefix of another and each ends at its first `:`, so the
 * mapping from (source, id) to `value` is one-to-one. A resend's identity has a prefix of its own
 * (`resend:`, see `resendIdentity` below).
 */
const PREFIX: Record<IdentitySource, string> = {
  configured_header: 'h:',
  provider: 'p:',
  vendor_header: 'v:',
  body_hash: 'sha256:',
};

/** An RFC 9110 token, the only thing `Headers.get` accepts without throwing. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * `X-<vendor>-Delivery-Id` on a lowercased name; `<vendor>` is one or more token characters
 * (which include `-`, so `X-Acme-Eu-Delivery-Id` has vendor `Acme-Eu`). `X-Delivery-Id` has no
 * vendor and does not match.
 */
const VENDOR_HEADER = /^x-[!#$%&'*+.^_`|~0-9a-z-]+-delivery-id$/;

/**
 * The identity of a delivery, from the first source with a usable value:
 * 1. the header named by the webhook's Delivery ID header setting;
 * 2. for signed webhooks, the provider's own delivery id (as the verifier reported it);
 * 3. an `X-<vendor>-Delivery-Id` header; when several carry a usable value, the one whose
 *    lowercased name is smallest in code-unit order wins, so the choice does not depend on the
 *    order the sender wrote them in;
 * 4. `sha256:` + SHA-256 hex of the canonical JSON of the body (keys sorted at every depth), so
 *    identical bodies without any id are duplicates of each other.
 *
 * A value is usable when, trimmed, it is not empty and at most {@link MAX_DELIVERY_ID_LENGTH}
 * long; the trimmed value is the id. An empty id would make every later delivery of that sender
 * a duplicate of the first; an overlong one is refused rather than cut, since two ids sharing a
 * prefix must not merge. An unusable value falls through to the next source instead of failing
 * the delivery: the sender still gets deduplication, just by a weaker key.
 *
 * A configured header name that is not an HTTP token (the control plane refuses those, but the
 * record may come from elsewhere) counts as no setting rather than throwing from `Headers.get`.
 *
 * The body hash walks the body recursively, once per level (util/canonical-json.ts). The ingress
 * refuses bodies nested deeper than {@link MAX_JSON_DEPTH} before parsing; this function checks
 * again, on that walk, which stops one level past the bound (or, for a value that is not plain
 * data, first by a walk without recursion), and answers a deeper body with the same 400, so no
 * caller can overflow the stack through it.
 */
export function resolveDeliveryIdentity(input: ResolveDeliveryIdentityInput): DeliveryIdentity {
  const { headers, configuredHeader, providerDeliveryId, body, sha256 = defaultSha256 } = input;

  if (configuredHeader !== null && HEADER_NAME.test(configuredHeader)) {
    const id = usable(headers.get(configuredHeader));
    if (id !== null) return identity('configured_header', id);
  }

  const provider = usable(providerDeliveryId);
  if (provider !== null) return identity('provider', provider);

  let vendorName: string | null = null;
  let vendorId: string | null = null;
  // `Headers` iterates lowercased names, a repeated header already combined into one `a, b` value.
  // It also iterates them sorted, but the explicit comparison keeps the choice independent of that.
  for (const [name, value] of headers) {
    if (!VENDOR_HEADER.test(name)) continue;
    const id = usable(value);
    if (id !== null && (vendorName === null || name < vendorName)) {
      vendorName = name;
      vendorId = id;
    }
  }
  if (vendorId !== null) return identity('vendor_header', vendorId);

  return identity('body_hash', sha256HexWith(sha256, bodyText(body)));
}

const identity = (source: IdentitySource, id: string): DeliveryIdentity => ({ value: PREFIX[source] + id, source });

/** The trimmed id, or null when it must not count (see resolveDeliveryIdentity). */
function usable(raw: string | null | undefined): string | null {
  if (raw === null || raw === undefined) return null;
  const id = raw.trim();
  return id === '' || id.length > MAX_DELIVERY_ID_LENGTH ? null : id;
}

/**
 * Canonical JSON of the body (util/canonical-json.ts). Numbers print as JSON numbers (`1.0` parsed
 * is `1`; `-0` prints as `0`), so textual variants of one value are one identity. No body
 * (`undefined`; the ingress refuses it as invalid JSON first) hashes the empty text, which is no
 * JSON value's canonical form. A parsed body is printed with its nesting checked on the way; a
 * value that is not plain data (a `toJSON`: not from JSON.parse) is checked first, then printed by
 * the library, as it always was.
 */
function bodyText(body: unknown): string {
  const text = plainCanonicalJson(body, MAX_JSON_DEPTH);
  if (text === TOO_DEEP) throw tooDeep();
  if (text !== NOT_PLAIN) return text ?? '';
  if (nestingExceeds(body, MAX_JSON_DEPTH)) throw tooDeep();
  return (stableStringify(body) as string | undefined) ?? '';
}

const tooDeep = () => invalidRequest(`the request body nests deeper than ${MAX_JSON_DEPTH} levels`);

/** Whether arrays and objects nest deeper than `max` (a top-level container is level 1). Iterative. */
function nestingExceeds(value: unknown, max: number): boolean {
  // Two parallel stacks of containers and their levels: no allocation per value visited.
  const nodes: object[] = [];
  const levels: number[] = [];
  const visit = (node: unknown, level: number) => {
    if (node !== null && typeof node === 'object') {
      nodes.push(node);
      levels.push(level);
    }
  };
  visit(value, 1);
  while (nodes.length > 0) {
    const node = nodes.pop() as object;
    const level = levels.pop() as number;
    if (level > max) return true;
    if (Array.isArray(node)) for (const child of node) visit(child, level + 1);
    else for (const key in node) if (Object.hasOwn(node, key)) visit((node as Record<string, unknown>)[key], level + 1);
  }
  return false;
}

const RESEND_PREFIX = 'resend:';

/**
 * A resent delivery's identity (control/resend-delivery.ts): `resend:<original id>:<own id>`. A
 * prefix of its own, so no sender's identity can be one, and unique to the resend, so it is never
 * a duplicate of the delivery it repeats, nor of another resend of it.
 */
export const resendIdentity = (originalId: string, ownId: string): string => `${RESEND_PREFIX}${originalId}:${ownId}`;

/** The delivery a log entry was resent from, read off its identity; `null` for a delivery a sender sent. */
export function resentFrom(identity: string | null): string | null {
  if (identity === null || !identity.startsWith(RESEND_PREFIX)) return null;
  const rest = identity.slice(RESEND_PREFIX.length);
  const colon = rest.lastIndexOf(':');
  return colon > 0 ? rest.slice(0, colon) : null;
}
