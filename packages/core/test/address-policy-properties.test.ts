import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callbackUrlProblem, isPrivateAddress } from '../src/callbacks/address-policy.js';

/**
 * Properties of where a callback may go (callbacks/address-policy.ts; docs/callbacks.md, "Where
 * callbacks may go"): the classifier is a parser of addresses an attacker writes, so it is checked
 * on generated addresses in every form, against an IPv4 reference written here from the RFCs'
 * ranges, and on the forms a URL's host takes after WHATWG parsing (what registration sees) as on
 * the text a resolver answers (what the send-time check sees).
 */

const byte = fc.integer({ min: 0, max: 255 });
const group = fc.integer({ min: 0, max: 0xffff });
const ipv4Arb = fc.tuple(byte, byte, byte, byte);

/** The IPv4 ranges that are not public, as their prefixes: the reference the classifier must agree with. */
const PRIVATE_V4: readonly [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
];
const v4Number = (b: readonly number[]) => b.reduce((n, x) => n * 256 + x, 0);
const inPrefix = (b: readonly number[], [base, bits]: readonly [string, number]) =>
  Math.floor(v4Number(b) / 2 ** (32 - bits)) === Math.floor(v4Number(base.split('.').map(Number)) / 2 ** (32 - bits));
const referencePrivate = (b: readonly number[]) => PRIVATE_V4.some((range) => inPrefix(b, range));

/** An IPv4 address, half the time from one of the private ranges. */
const someIpv4 = fc.oneof(
  ipv4Arb,
  fc.tuple(fc.constantFrom(...PRIVATE_V4), fc.integer({ min: 0, max: 2 ** 32 - 1 })).map(([[base, bits], n]) => {
    const value = v4Number(base.split('.').map(Number)) + (n % 2 ** (32 - bits));
    return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255] as [number, number, number, number];
  }),
);

const dotted = (b: readonly number[]) => b.join('.');
const hexPair = (b: readonly number[]) => [((b[0] ?? 0) << 8) | (b[1] ?? 0), ((b[2] ?? 0) << 8) | (b[3] ?? 0)].map((g) => g.toString(16));

/** The IPv6 forms that carry an IPv4 address, each written with it dotted and in hex. */
const embeddings = (b: readonly number[], sixToFourRest: readonly number[]) => {
  const [h, l] = hexPair(b);
  const rest = sixToFourRest.map((g) => g.toString(16)).join(':');
  return [
    `::ffff:${dotted(b)}`,
    `::ffff:${h}:${l}`,
    `0:0:0:0:0:ffff:${h}:${l}`,
    `::ffff:0:${dotted(b)}`,
    `::${dotted(b)}`,
    `::${h}:${l}`,
    `64:ff9b::${dotted(b)}`,
    `64:FF9B::${h}:${l}`,
    `64:ff9b:0:0:0:0:${h}:${l}`,
    `2002:${h}:${l}:${rest}`,
  ];
};

/** Eight groups as text: in full, zero-padded or not, in either case. */
const fullText = (groups: readonly number[], pad: boolean, upper: boolean) => {
  const text = groups.map((g) => (pad ? g.toString(16).padStart(4, '0') : g.toString(16))).join(':');
  return upper ? text.toUpperCase() : text;
};

/** The host a URL's parser makes of an IPv6 literal: what registration and the sender read. */
const urlHost = (literal: string) => new URL(`http://[${literal}]:8080/hook`).hostname;

describe('the callback address classifier (properties)', () => {
  it('an IPv4 address is private exactly when it is in one of the reserved ranges', () => {
    fc.assert(
      fc.property(someIpv4, (b) => {
        expect(isPrivateAddress(dotted(b))).toBe(referencePrivate(b));
      }),
      { numRuns: 500 },
    );
  });

  it('an IPv6 form carrying an IPv4 address (mapped, translated, compatible, NAT64, 6to4) is as private as that address, in every spelling', () => {
    fc.assert(
      fc.property(someIpv4, fc.array(group, { minLength: 5, maxLength: 5 }), (b, rest) => {
        const expected = referencePrivate(b);
        for (const form of embeddings(b, rest)) {
          expect({ form, private: isPrivateAddress(form) }).toEqual({ form, private: expected });
          expect({ form, bracketed: isPrivateAddress(`[${form}]`) }).toEqual({ form, bracketed: expected });
          // What registration reads: the URL parser's own spelling of the literal.
          expect({ form, host: urlHost(form), private: isPrivateAddress(urlHost(form)) }).toMatchObject({ form, private: expected });
          // At registration: a private one is refused, a public one is not refused for its address.
          const problem = callbackUrlProblem(`http://[${form}]:8080/hook`, false);
          expect({ form, refused: problem !== undefined }).toEqual({ form, refused: expected });
        }
      }),
      { numRuns: 300 },
    );
  });

  it('any IPv6 address is classified the same in full, padded, upper case, bracketed, with a zone, and as a URL spells it', () => {
    fc.assert(
      fc.property(fc.array(group, { minLength: 8, maxLength: 8 }), fc.boolean(), fc.boolean(), (groups, pad, upper) => {
        const canonical = isPrivateAddress(fullText(groups, false, false));
        expect(typeof canonical).toBe('boolean');
        const text = fullText(groups, pad, upper);
        expect(isPrivateAddress(text)).toBe(canonical);
        expect(isPrivateAddress(`[${text}]`)).toBe(canonical);
        expect(isPrivateAddress(`${text}%eth0`)).toBe(canonical);
        expect(isPrivateAddress(urlHost(text))).toBe(canonical);
      }),
      { numRuns: 500 },
    );
  });

  it('every address under NAT64’s local-use prefix 64:ff9b:1::/48 and outside the well-known /96 is private', () => {
    fc.assert(
      fc.property(fc.array(group, { minLength: 5, maxLength: 5 }), (rest) => {
        expect(isPrivateAddress(fullText([0x64, 0xff9b, 1, ...rest], false, false))).toBe(true);
      }),
    );
    fc.assert(
      fc.property(fc.array(group, { minLength: 6, maxLength: 6 }), (rest) => {
        fc.pre(rest.slice(0, 4).some((g) => g !== 0));
        expect(isPrivateAddress(fullText([0x64, 0xff9b, ...rest], false, false))).toBe(true);
      }),
    );
  });

  it('a localhost name is refused in any case, with any number of trailing dots, and under any label', () => {
    const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
    fc.assert(
      fc.property(
        fc.array(label, { maxLength: 3 }),
        fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }),
        fc.integer({ min: 0, max: 2 }),
        fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
        (labels, cases, dots, port) => {
          const localhost = [...'localhost'].map((c, i) => (cases[i] ? c.toUpperCase() : c)).join('');
          const host = [...labels, localhost].join('.') + '.'.repeat(dots);
          const url = `http://${host}${port === undefined ? '' : `:${port}`}/hook`;
          fc.pre(URL.canParse(url));
          expect({ url, problem: callbackUrlProblem(url, false) }).toEqual({ url, problem: expect.stringMatching(/private/) });
        },
      ),
    );
  });

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^[0-9a-fA-F:.[\]%]{0,60}$/)), (text) => {
        expect([true, false, undefined]).toContain(isPrivateAddress(text));
        expect(['string', 'undefined']).toContain(typeof callbackUrlProblem(`http://${text}/`, false));
      }),
      { numRuns: 500 },
    );
  });
});
