import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAgentLine } from '../src/protocol.js';

// The `usage` message (docs/executors.md, "The JSON-lines protocol"): an agent is untrusted, so
// only the known fields, each a finite number not below 0, make a message; anything else is shown
// as the line it is.

const FIELDS = ['compute_cost', 'compute_cost_usd', 'inference_cost', 'inference_cost_usd', 'platform_cost', 'platform_cost_usd'] as const;
const amount = fc.oneof(fc.double({ min: 0, max: 1e15, noNaN: true }), fc.nat());
const usage = fc.record(Object.fromEntries(FIELDS.map((f) => [f, amount])) as Record<(typeof FIELDS)[number], fc.Arbitrary<number>>, {
  requiredKeys: [],
});

describe('parseAgentLine: usage', () => {
  it('takes any set of the known fields as finite numbers from 0', () => {
    fc.assert(
      fc.property(usage, (u) => {
        expect(parseAgentLine(JSON.stringify({ agentrun: 'usage', ...u }))).toEqual({ agentrun: 'usage', ...u });
      }),
    );
  });

  it('refuses a negative, non-finite or non-numeric amount, and unknown fields', () => {
    const bad = fc.oneof(
      fc.double({ max: -Number.MIN_VALUE, noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
      fc.constantFrom('1e999', '-1e999', '"5"', 'null', 'true', '[1]', '{"a":1}'),
    );
    fc.assert(
      fc.property(fc.constantFrom(...FIELDS), bad, (field, value) => {
        expect(typeof parseAgentLine(`{"agentrun":"usage","${field}":${value}}`)).toBe('string');
      }),
    );
    expect(typeof parseAgentLine('{"agentrun":"usage","tokens":5}')).toBe('string');
    expect(typeof parseAgentLine('{"agentrun":"usage","__proto__":{"compute_cost":1}}')).toBe('string');
  });
});
