import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { acceptedPayload, payloadJson } from '../src/control/deliveries.js';
import { isCredentialHeader } from '../src/control/delivery-id-header.js';
import { DeliveryIdHeaderSchema } from '../src/control/schemas.js';
import { secretUnfitFor } from '../src/control/secret-fit.js';
import { AgentRunError } from '../src/errors.js';
import { DELIVERY_STATUSES, type DeliveryRecord } from '../src/ingress/records.js';

const URL_SAFE = /^[A-Za-z0-9._~-]+$/;
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
/** Secret values as people paste them: mostly tokens, sometimes with spaces, quotes or non-ASCII. */
const valueArb = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._~-]{1,40}$/),
  fc.string({ minLength: 1, maxLength: 40 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 }),
);

describe('secretUnfitFor: the secret a webhook can use', () => {
  it('a url_token is URL-safe, a bearer token one header token, a signature secret anything', () => {
    fc.assert(
      fc.property(valueArb, (value) => {
        expect(secretUnfitFor('url_token', value) === undefined).toBe(URL_SAFE.test(value));
        expect(secretUnfitFor('token', value) === undefined).toBe(VISIBLE_ASCII.test(value));
        expect(secretUnfitFor('signature', value)).toBeUndefined();
      }),
    );
  });

  it('says why, in words a 400 can carry', () => {
    expect(secretUnfitFor('url_token', 'a/b')).toMatch(/not URL-safe/);
    expect(secretUnfitFor('token', 'two words')).toMatch(/Authorization: Bearer/);
  });
});

describe('isCredentialHeader: a delivery ID header never carries a credential', () => {
  // docs/management-api.md, `delivery_id_header`: any name containing one of these, in any case.
  const WORDS = [
    'auth',
    'cookie',
    'signature',
    'token',
    'secret',
    'password',
    'passwd',
    'api-key',
    'api_key',
    'apikey',
    'hmac',
    'credential',
    'session',
  ];
  const TOKEN_CHAR = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.'.split(''));
  const part = fc.string({ unit: TOKEN_CHAR, maxLength: 12 });
  const flipCase = (s: string, flips: boolean[]) =>
    [...s].map((c, i) => (flips[i % Math.max(flips.length, 1)] ? c.toUpperCase() : c.toLowerCase())).join('');

  it('refuses every name containing a listed word, whatever its case and surroundings', () => {
    fc.assert(
      fc.property(part, fc.constantFrom(...WORDS), part, fc.array(fc.boolean(), { minLength: 1 }), (before, word, after, flips) => {
        const name = `${before}${flipCase(word, flips)}${after}`;
        expect(isCredentialHeader(name)).toBe(true);
        expect(v.safeParse(DeliveryIdHeaderSchema, name).success).toBe(false);
      }),
    );
  });

  it('accepts a header name containing none of them', () => {
    fc.assert(
      fc.property(
        part.filter((s) => s.length > 0),
        (name) => {
          const lower = name.toLowerCase();
          fc.pre(!WORDS.some((w) => lower.includes(w)));
          expect(isCredentialHeader(name)).toBe(false);
          expect(v.safeParse(DeliveryIdHeaderSchema, name).success).toBe(true);
        },
      ),
    );
  });

  it.each([
    'Authorization',
    'X-Auth-Key',
    'X-Auth-Id',
    'X-Authentication',
    'Cookie',
    'X-Hub-Signature-256',
    'X-Gitlab-Token',
    'X-Api-Key',
    'X-Session-Id',
  ])('refuses %s, naming it', (name) => {
    const result = v.safeParse(DeliveryIdHeaderSchema, name);
    expect(result.success).toBe(false);
    expect(result.issues?.[0]?.message).toBe(
      `${name} carries credentials or signatures; name a header that holds only the event's ID (such as X-Event-Id)`,
    );
  });

  it.each(['X-Event-Id', 'X-GitHub-Delivery', 'Webhook-Id', 'X-Request-Id'])('accepts %s', (name) => {
    expect(isCredentialHeader(name)).toBe(false);
  });
});

describe('acceptedPayload: only accepted deliveries keep their body', () => {
  const delivery = (status: DeliveryRecord['status'], payload: Uint8Array | null): DeliveryRecord => ({
    id: 'd-1',
    teamUid: 't',
    factoryUid: 'f',
    webhookUid: 'w',
    identity: null,
    size: 2,
    receivedAt: '2026-01-01T00:00:00.000Z',
    status,
    payload,
  });

  it('gives the kept bytes, which parse as the JSON received', () => {
    const bytes = new TextEncoder().encode('{"amount":1.50}');
    expect(acceptedPayload(delivery('Accepted', bytes))).toBe(bytes);
    expect(payloadJson(bytes)).toEqual({ amount: 1.5 });
  });

  it.each(DELIVERY_STATUSES.filter((s) => s !== 'Accepted'))('is a 409 for a %s entry', (status) => {
    let error: unknown;
    try {
      acceptedPayload(delivery(status, null));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AgentRunError);
    expect(error).toMatchObject({ status: 409, detail: `delivery d-1 is ${status}: only accepted deliveries keep their payload` });
  });
});
