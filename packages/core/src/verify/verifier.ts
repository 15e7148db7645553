import type { SignatureScheme } from '../control/schemas.js';

/** What a verifier sees of one delivery (docs/signatures.md, "The interface"). */
export interface VerifyInput {
  /** The exact raw bytes received: signatures cover bytes, never a re-encoded string. */
  body: Uint8Array;
  headers: Headers;
  /** The webhook's signing secret; `undefined` (or blank) while not yet supplied: always fails closed. */
  secret: string | undefined;
  /** Current time in ms since the epoch, injected so tests and replays control the clock. */
  now: number;
}

export type VerifyResult =
  | {
      ok: true;
      /** The provider's own delivery header value (for stripe, the body's `id`), when present. */
      deliveryId?: string;
    }
  | {
      ok: false;
      /** Short and safe to log: never the secret, an expected signature or a header's value. */
      reason: string;
    };

/**
 * One provider signature scheme. The ingress pipeline only knows this interface, so a new scheme
 * plugs in through the registry (registry.ts) without touching it. `verify` never throws or
 * rejects: every failure, including a malformed header, is `{ ok: false, reason }`.
 */
export interface Verifier<S extends string = SignatureScheme> {
  readonly scheme: S;
  /**
   * The headers (lower case) it reads a secret or a proof of one from: masked before a delivery's
   * headers are stored, with every name that looks like a credential (docs/webhooks.md).
   */
  readonly secretHeaders?: readonly string[];
  verify(input: VerifyInput): Promise<VerifyResult>;
}

/** A verify input whose secret is known to be supplied. */
export type SuppliedInput = VerifyInput & { secret: string };

export const verified = (deliveryId: string | undefined): VerifyResult =>
  deliveryId === undefined ? { ok: true } : { ok: true, deliveryId };

export const unverified = (reason: string): VerifyResult => ({ ok: false, reason });

/**
 * Wrap a scheme's check with the rules every scheme shares: an unsupplied secret fails closed
 * before anything is read, and anything thrown (a host's HMAC port, a bug) becomes a rejection
 * rather than a 500, so an attacker's input can never do more than fail.
 */
export const defineVerifier = <S extends string>(
  scheme: S,
  check: (input: SuppliedInput) => VerifyResult | Promise<VerifyResult>,
  secretHeaders: readonly string[] = [],
): Verifier<S> => ({
  scheme,
  secretHeaders,
  async verify(input) {
    if (typeof input.secret !== 'string' || input.secret === '') return unverified('signing secret not supplied');
    try {
      return await check(input as SuppliedInput);
    } catch {
      return unverified('verification error');
    }
  },
});

/** The first of `names` present with a non-empty value (header names are case-insensitive). */
export const header = (headers: Headers, ...names: string[]): string | undefined => {
  for (const name of names) {
    const value = headers.get(name)?.trim();
    if (value) return value;
  }
  return undefined;
};
