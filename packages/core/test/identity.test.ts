import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AgentRunError } from '../src/errors.js';
import { MAX_JSON_DEPTH } from '../src/http/body.js';
import {
  type DeliveryIdentity,
  MAX_DELIVERY_ID_LENGTH,
  type ResolveDeliveryIdentityInput,
  resolveDeliveryIdentity,
} from '../src/ingress/identity.js';
import { sha256Hex } from '../src/util/hash.js';

/**
 * Delivery identity (docs/webhooks.md, "Delivery IDs and duplicates"). Examples per source and
 * fall-through rule, then properties against a reference written independently of the
 * implementation. Runs per CI run: 3,000 (reference) + 1,000 (header order and key order) + 1,000
 * (name case) + 1,000 (distinct bodies) + 1,000 (sources never collide) = 7,000.
 */

type HeaderPairs = Array<[string, string]>;

const headersOf = (pairs: HeaderPairs): Headers => {
  const headers = new Headers();
  for (const [name, value] of pairs) headers.append(name, value);
  return headers;
};

const resolve = (over: Partial<Omit<ResolveDeliveryIdentityInput, 'headers'>> & { headers?: HeaderPairs } = {}): DeliveryIdentity =>
  resolveDeliveryIdentity({
    headers: headersOf(over.headers ?? []),
    configuredHeader: over.configuredHeader ?? null,
    providerDeliveryId: over.providerDeliveryId,
    body: 'body' in over ? over.body : { event: 'ping' },
  });

/** Test-side canonical JSON: sorted keys at every depth, written without the library. */
function refCanonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(refCanonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${refCanonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const bodyHash = (body: unknown) => `sha256:${sha256Hex(refCanonical(body))}`;

const nest = (depth: number, leaf: unknown = 1): unknown => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { k: value };
  return value;
};

describe('resolveDeliveryIdentity: examples', () => {
  it('prefers the configured header over every other source', () => {
    const id = resolve({
      headers: [
        ['X-Request-Id', 'req-1'],
        ['X-GitHub-Delivery-Id', 'gh-1'],
      ],
      configuredHeader: 'X-Request-Id',
      providerDeliveryId: 'prov-1',
    });
    expect(id).toEqual({ value: 'h:req-1', source: 'configured_header' });
  });

  it('matches the configured header name case-insensitively', () => {
    expect(resolve({ headers: [['x-request-id', 'r']], configuredHeader: 'X-REQUEST-ID' })).toEqual({
      value: 'h:r',
      source: 'configured_header',
    });
  });

  it('takes the provider id when the configured header is unset, absent or unusable', () => {
    const provider = { value: 'p:prov-1', source: 'provider' };
    expect(resolve({ providerDeliveryId: 'prov-1' })).toEqual(provider);
    expect(resolve({ configuredHeader: 'X-Request-Id', providerDeliveryId: 'prov-1' })).toEqual(provider);
    for (const bad of ['', '   ', '\t', 'x'.repeat(MAX_DELIVERY_ID_LENGTH + 1)]) {
      expect(resolve({ headers: [['X-Request-Id', bad]], configuredHeader: 'X-Request-Id', providerDeliveryId: 'prov-1' })).toEqual(
        provider,
      );
    }
  });

  it('treats a configured name that is not a header name as no setting, without throwing', () => {
    for (const name of ['', 'bad name', 'x:y', 'é']) {
      expect(resolve({ configuredHeader: name, providerDeliveryId: 'prov-1' })).toEqual({ value: 'p:prov-1', source: 'provider' });
    }
  });

  it('takes an X-<vendor>-Delivery-Id header when there is no configured or provider id', () => {
    const vendor = { value: 'v:gh-1', source: 'vendor_header' };
    expect(resolve({ headers: [['X-GitHub-Delivery-Id', 'gh-1']] })).toEqual(vendor);
    expect(resolve({ headers: [['x-github-delivery-id', 'gh-1']] })).toEqual(vendor);
    expect(resolve({ headers: [['X-GITHUB-DELIVERY-ID', 'gh-1']] })).toEqual(vendor);
    for (const bad of ['', '  ', 'x'.repeat(MAX_DELIVERY_ID_LENGTH + 1)]) {
      expect(resolve({ headers: [['X-GitHub-Delivery-Id', 'gh-1']], providerDeliveryId: bad })).toEqual(vendor);
    }
  });

  it('accepts any token vendor, including ones with dashes, and needs a vendor', () => {
    expect(resolve({ headers: [['X-Acme-Eu-Delivery-Id', 'a']] }).value).toBe('v:a');
    expect(resolve({ headers: [["X-A.b_c~'-Delivery-Id", 'a']] }).value).toBe('v:a');
    expect(resolve({ headers: [['X---Delivery-Id', 'a']] }).value).toBe('v:a'); // vendor "-"
    for (const name of [
      'X-Delivery-Id',
      'X--Delivery-Id',
      'Acme-Delivery-Id',
      'X-Acme-Delivery-Id-2',
      'X-Acme-Delivery',
      'XX-Acme-Delivery-Id',
    ]) {
      expect(resolve({ headers: [[name, 'a']] }).source).toBe('body_hash');
    }
  });

  it('picks the smallest lowercased name among usable vendor headers, whatever the order sent', () => {
    const pairs: HeaderPairs = [
      ['X-Zeta-Delivery-Id', 'z'],
      ['X-beta-Delivery-Id', 'b'],
      ['X-Alpha-Delivery-Id', '  '],
      ['X-Gamma-Delivery-Id', 'g'],
    ];
    expect(resolve({ headers: pairs }).value).toBe('v:b');
    expect(resolve({ headers: [...pairs].reverse() }).value).toBe('v:b');
  });

  it('combines a repeated header into one value, as Headers does', () => {
    expect(
      resolve({
        headers: [
          ['X-Acme-Delivery-Id', 'a'],
          ['X-Acme-Delivery-Id', 'b'],
        ],
      }).value,
    ).toBe('v:a, b');
  });

  it('trims ids and counts exactly 256 characters but not 257', () => {
    const max = 'y'.repeat(MAX_DELIVERY_ID_LENGTH);
    expect(resolve({ providerDeliveryId: `  ${max}\t` })).toEqual({ value: `p:${max}`, source: 'provider' });
    expect(resolve({ headers: [['X-Acme-Delivery-Id', ` ${max} `]] }).value).toBe(`v:${max}`);
    expect(resolve({ headers: [['X-Acme-Delivery-Id', `${max}z`]] }).source).toBe('body_hash');
    expect(resolve({ providerDeliveryId: '\u00a0\u3000\n' }).source).toBe('body_hash'); // Unicode whitespace too
  });

  it('falls back to sha256 of the canonical JSON of the body', () => {
    expect(resolve({ body: { b: 2, a: 1 } })).toEqual({ value: `sha256:${sha256Hex('{"a":1,"b":2}')}`, source: 'body_hash' });
    expect(resolve({ body: JSON.parse('{"a":1,"b":2}') })).toEqual(resolve({ body: JSON.parse('{"b":2,"a":1}') }));
    expect(resolve({ body: JSON.parse('{"n":1.0}') })).toEqual(resolve({ body: JSON.parse('{"n":1}') }));
    expect(resolve({ body: JSON.parse('[1e2]') })).toEqual(resolve({ body: [100] }));
    expect(resolve({ body: JSON.parse('{"x":{"d":[{"z":1,"y":2}],"c":null}}') }).value).toBe(
      `sha256:${sha256Hex('{"x":{"c":null,"d":[{"y":2,"z":1}]}}')}`,
    );
    // Different bodies, different identities; array order matters.
    expect(resolve({ body: [1, 2] }).value).not.toBe(resolve({ body: [2, 1] }).value);
    expect(resolve({ body: '1' }).value).not.toBe(resolve({ body: 1 }).value);
  });

  it('hashes a missing body as the empty text, apart from every JSON value', () => {
    expect(resolve({ body: undefined })).toEqual({ value: `sha256:${sha256Hex('')}`, source: 'body_hash' });
    expect(resolve({ body: undefined }).value).not.toBe(resolve({ body: null }).value);
  });

  it('keeps sources apart even when the raw ids are equal', () => {
    const hash = resolve({ body: { a: 1 } }).value;
    const values = [
      resolve({ headers: [['X-Id', hash]], configuredHeader: 'X-Id' }).value,
      resolve({ providerDeliveryId: hash }).value,
      resolve({ headers: [['X-Acme-Delivery-Id', hash]] }).value,
      hash,
    ];
    expect(new Set(values).size).toBe(4);
    expect(resolve({ headers: [['X-Id', 'same']], configuredHeader: 'X-Id' }).value).not.toBe(
      resolve({ providerDeliveryId: 'same' }).value,
    );
  });

  it(`hashes bodies nested ${MAX_JSON_DEPTH} levels deep (the ingress cap)`, () => {
    const deep = nest(MAX_JSON_DEPTH);
    expect(resolve({ body: deep })).toEqual({ value: bodyHash(deep), source: 'body_hash' });
  });

  it('answers a deeper body with a 400 instead of recursing, however deep', () => {
    for (const depth of [MAX_JSON_DEPTH + 1, 200_000]) {
      let error: unknown;
      try {
        resolve({ body: nest(depth) });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(AgentRunError);
      expect((error as AgentRunError).code).toBe('invalid_request');
    }
  });

  it('does not look at the body when a header or provider id decides', () => {
    // Too deep to hash, but never hashed.
    expect(resolve({ providerDeliveryId: 'p1', body: nest(200_000) }).value).toBe('p:p1');
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

/** Small deterministic PRNG (mulberry32), so a shrunk seed reproduces a shuffle or a casing. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

const recase = (name: string, random: () => number) => [...name].map((c) => (random() < 0.5 ? c.toLowerCase() : c.toUpperCase())).join('');

/** The same JSON value with every object's keys inserted in a shuffled order. */
function shuffleKeys(value: unknown, random: () => number): unknown {
  if (Array.isArray(value)) return value.map((v) => shuffleKeys(v, random));
  if (value !== null && typeof value === 'object') {
    // fromEntries defines own properties, so a "__proto__" key stays a key.
    return Object.fromEntries(shuffle(Object.entries(value), random).map(([k, v]) => [k, shuffleKeys(v, random)]));
  }
  return value;
}

const TOKEN_CHARS = "!#$%&'*+.^_`|~0123456789abcdefghijklmnopqrstuvwxyz-";
const token = (max: number) => fc.string({ unit: fc.constantFrom(...TOKEN_CHARS), minLength: 1, maxLength: max });

/** Names that meet often: configured-header candidates, vendor headers, near misses. */
const NAME_POOL = [
  'x-request-id',
  'x-id',
  'x-github-delivery-id',
  'x-acme-delivery-id',
  'x-a-delivery-id',
  'x-acme-eu-delivery-id',
  'x---delivery-id',
  'x-delivery-id',
  'x--delivery-id',
  'delivery-id',
  'x-acme-delivery-id-2',
  'content-type',
  'idempotency-key',
];

const headerName = fc.mixedCase(
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...NAME_POOL) },
    { weight: 3, arbitrary: token(6).map((v) => `x-${v}-delivery-id`) },
    { weight: 1, arbitrary: token(12) },
  ),
);

/** Visible Latin-1 text without leading or trailing whitespace. */
const idText = (min: number, max: number) =>
  fc
    .string({ unit: fc.constantFrom(...'abcXYZ019-_:./ ,é\u00ff'), minLength: min, maxLength: max })
    .filter((s) => s.trim() === s && s !== '');

/** Header values: usable ids, padded ids, empty and whitespace-only, and lengths around the cap. */
const headerValue = fc.oneof(
  { weight: 4, arbitrary: idText(1, 12) },
  { weight: 1, arbitrary: idText(1, 8).map((s) => `  ${s}\t`) },
  { weight: 2, arbitrary: fc.constantFrom('', ' ', '   ', '\t', ' \t ', '\u00a0') },
  { weight: 2, arbitrary: fc.integer({ min: MAX_DELIVERY_ID_LENGTH - 2, max: MAX_DELIVERY_ID_LENGTH + 2 }).map((n) => 'L'.repeat(n)) },
);

const headerPairs = fc.uniqueArray(fc.tuple(headerName, headerValue), { maxLength: 8, selector: ([name]) => name.toLowerCase() });

/** Configured names: often one of the headers sent (in another case), sometimes absent or not a name. */
const configuredHeaderFor = (pairs: HeaderPairs) =>
  fc.option(
    fc.oneof(
      { weight: 4, arbitrary: fc.mixedCase(fc.constantFrom('x-id', ...pairs.map(([name]) => name))) },
      { weight: 2, arbitrary: fc.mixedCase(fc.constantFrom(...NAME_POOL)) },
      { weight: 1, arbitrary: fc.constantFrom('', 'bad name', 'x:y') },
    ),
    { nil: null, freq: 2 },
  );

/** Provider ids are not header values: any string, including non-Latin-1. Absent half the time. */
const providerId = fc.option(fc.oneof(headerValue, fc.string({ unit: 'binary', maxLength: 10 })), { nil: undefined, freq: 2 });

const body = fc.jsonValue({ maxDepth: 4 });

const inputArb = headerPairs.chain((pairs) =>
  fc.record({ pairs: fc.constant(pairs), configuredHeader: configuredHeaderFor(pairs), providerDeliveryId: providerId, body }),
);
type Input = { pairs: HeaderPairs; configuredHeader: string | null; providerDeliveryId: string | undefined; body: unknown };

const run = (input: Input, pairs: HeaderPairs = input.pairs, body: unknown = input.body, configured = input.configuredHeader) =>
  resolveDeliveryIdentity({ headers: headersOf(pairs), configuredHeader: configured, providerDeliveryId: input.providerDeliveryId, body });

/**
 * The order of docs/webhooks.md ("Delivery IDs and duplicates"), restated plainly on the pairs as
 * sent.
 */
function reference(input: Input): DeliveryIdentity {
  const id = (raw: string | undefined): string | null => {
    const t = raw?.trim();
    return t === undefined || t === '' || t.length > MAX_DELIVERY_ID_LENGTH ? null : t;
  };
  const lower = input.pairs.map(([n, v]) => [n.toLowerCase(), v] as const);
  const configured = input.configuredHeader;
  if (configured !== null && /^[\x21-\x7e]+$/.test(configured) && !/[ "(),/:;<=>?@[\\\]{}]/.test(configured)) {
    const hit = id(lower.find(([n]) => n === configured.toLowerCase())?.[1]);
    if (hit !== null) return { value: `h:${hit}`, source: 'configured_header' };
  }
  const provider = id(input.providerDeliveryId);
  if (provider !== null) return { value: `p:${provider}`, source: 'provider' };
  const vendors = lower
    .filter(([n, v]) => n.startsWith('x-') && n.endsWith('-delivery-id') && n.length > 'x--delivery-id'.length && id(v) !== null)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const first = vendors[0];
  if (first !== undefined) return { value: `v:${id(first[1])}`, source: 'vendor_header' };
  return { value: bodyHash(input.body), source: 'body_hash' };
}

describe('resolveDeliveryIdentity: properties', () => {
  it('takes the highest-preference source with a usable value', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        expect(run(input)).toEqual(reference(input));
      }),
      { numRuns: 3000 },
    );
  });

  it('does not depend on the order headers were added or the key order of body objects', () => {
    fc.assert(
      fc.property(inputArb, fc.integer(), (input, seed) => {
        const random = prng(seed);
        expect(run(input, shuffle(input.pairs, random), shuffleKeys(input.body, random))).toEqual(run(input));
      }),
      { numRuns: 1000 },
    );
  });

  it('matches header names case-insensitively', () => {
    fc.assert(
      fc.property(inputArb, fc.integer(), (input, seed) => {
        const random = prng(seed);
        const pairs = input.pairs.map(([n, v]): [string, string] => [recase(n, random), v]);
        const configured = input.configuredHeader === null ? null : recase(input.configuredHeader, random);
        expect(run(input, pairs, input.body, configured)).toEqual(run(input));
      }),
      { numRuns: 1000 },
    );
  });

  it('gives distinct bodies distinct body-hash identities, and equal ones equal identities', () => {
    fc.assert(
      fc.property(fc.uniqueArray(body, { minLength: 2, maxLength: 2, selector: refCanonical }), fc.integer(), ([a, b], seed) => {
        const hashOf = (value: unknown) => resolve({ body: value });
        expect(hashOf(a).source).toBe('body_hash');
        expect(hashOf(a).value).not.toBe(hashOf(b).value);
        // Equal canonical JSON: a re-serialised, re-parsed, key-shuffled copy.
        const copy = shuffleKeys(JSON.parse(JSON.stringify(a)), prng(seed));
        expect(hashOf(copy)).toEqual(hashOf(a));
      }),
      { numRuns: 1000 },
    );
  });

  it('never gives the same identity to one id arriving through different sources', () => {
    // The raw id is sometimes another source's whole identity or a body hash's hex, the likeliest
    // collisions if the prefixes were missing.
    const raw = fc.oneof(
      idText(1, 12),
      body.map(bodyHash),
      body.map((b) => bodyHash(b).slice('sha256:'.length)),
      idText(1, 8).map((s) => `v:${s}`),
    );
    fc.assert(
      fc.property(raw, body, (id, b) => {
        const values = [
          resolve({ headers: [['X-Id', id]], configuredHeader: 'X-Id', body: b }),
          resolve({ providerDeliveryId: id, body: b }),
          resolve({ headers: [['X-Acme-Delivery-Id', id]], body: b }),
          resolve({ body: b }),
        ];
        expect(values.map((v) => v.source)).toEqual(['configured_header', 'provider', 'vendor_header', 'body_hash']);
        expect(new Set(values.map((v) => v.value)).size).toBe(4);
      }),
      { numRuns: 1000 },
    );
  });
});
