import { describe, expect, it } from 'vitest';
import { AgentRunError } from '../src/errors.js';
import { compileFilter } from '../src/filter/compile.js';
import { explainFilter } from '../src/filter/explain.js';
import type { PayloadFilter } from '../src/filter/types.js';

/** Whether `filter` matches `payload`, after a JSON round trip when given as text. */
const matches = (filter: PayloadFilter | string, payload: unknown): boolean =>
  compileFilter(typeof filter === 'string' ? JSON.parse(filter) : filter)(payload);

const json = (text: string): unknown => JSON.parse(text);

describe('payload filters', () => {
  it('{} matches everything, whatever the payload', () => {
    for (const payload of [{}, { a: 1 }, [], [1], 'text', '', 0, 1, true, false, null, undefined]) expect(matches({}, payload)).toBe(true);
  });

  it('every key must match', () => {
    const filter = { action: ['opened'], number: [7] };
    expect(matches(filter, { action: 'opened', number: 7 })).toBe(true);
    expect(matches(filter, { action: 'opened', number: 8 })).toBe(false);
    expect(matches(filter, { action: 'closed', number: 7 })).toBe(false);
  });

  it('an array is the allowed values, the same as { in: [...] }', () => {
    for (const filter of [{ action: ['opened', 'synchronize'] }, { action: { in: ['opened', 'synchronize'] } }]) {
      expect(matches(filter, { action: 'opened' })).toBe(true);
      expect(matches(filter, { action: 'synchronize' })).toBe(true);
      expect(matches(filter, { action: 'closed' })).toBe(false);
      expect(matches(filter, {})).toBe(false);
    }
    expect(matches({ action: [] }, { action: 'opened' })).toBe(false);
    expect(matches({ action: { in: [] } }, {})).toBe(false);
  });

  it('not_in excludes values and holds on a missing key', () => {
    const filter = { action: { not_in: ['closed'] } };
    expect(matches(filter, { action: 'opened' })).toBe(true);
    expect(matches(filter, { action: 'closed' })).toBe(false);
    expect(matches(filter, {})).toBe(true);
    expect(matches(filter, { action: null })).toBe(true);
    expect(matches({ action: { not_in: [] } }, { action: 'x' })).toBe(true);
  });

  it('exists: true needs the key, exists: false needs it missing; null is present', () => {
    expect(matches({ merged_at: { exists: true } }, { merged_at: '2026-01-01T00:00:00Z' })).toBe(true);
    expect(matches({ merged_at: { exists: true } }, { merged_at: null })).toBe(true);
    expect(matches({ merged_at: { exists: true } }, {})).toBe(false);
    expect(matches({ merged_at: { exists: false } }, {})).toBe(true);
    expect(matches({ merged_at: { exists: false } }, { merged_at: null })).toBe(false);
    expect(matches({ merged_at: { exists: true } }, { merged_at: [] })).toBe(true);
    expect(matches({ merged_at: { exists: true } }, { merged_at: false })).toBe(true);
  });

  it('several operators in one object must all hold', () => {
    const filter = { n: { in: [1, 2, 3], not_in: [2] } };
    expect(matches(filter, { n: 1 })).toBe(true);
    expect(matches(filter, { n: 2 })).toBe(false);
    expect(matches(filter, { n: 4 })).toBe(false);
    const present = { n: { exists: true, not_in: [null] } };
    expect(matches(present, { n: 0 })).toBe(true);
    expect(matches(present, { n: null })).toBe(false);
    expect(matches(present, {})).toBe(false);
    // Contradictory, yet valid: never holds.
    expect(matches({ n: { exists: false, in: [1] } }, {})).toBe(false);
    expect(matches({ n: { exists: false, in: [1] } }, { n: 1 })).toBe(false);
  });

  it('null is a present value and equals only null', () => {
    expect(matches({ a: [null] }, { a: null })).toBe(true);
    expect(matches({ a: [null] }, {})).toBe(false);
    for (const other of [0, '', false, 'null', [], {}]) expect(matches({ a: [null] }, { a: other })).toBe(false);
    expect(matches({ a: { not_in: [null] } }, { a: null })).toBe(false);
    expect(matches({ a: { not_in: [null] } }, {})).toBe(true);
  });

  it('numbers compare by value: 1, 1.0 and 1e0 are one number; "1" and true are not', () => {
    expect(matches('{"n":[1]}', json('{"n":1.0}'))).toBe(true);
    expect(matches('{"n":[1.0]}', json('{"n":1}'))).toBe(true);
    expect(matches('{"n":[1]}', json('{"n":1e0}'))).toBe(true);
    expect(matches('{"n":[100]}', json('{"n":1E2}'))).toBe(true);
    expect(matches('{"n":[0]}', json('{"n":-0}'))).toBe(true);
    expect(matches('{"n":[1]}', json('{"n":"1"}'))).toBe(false);
    expect(matches('{"n":[1]}', json('{"n":true}'))).toBe(false);
    expect(matches('{"n":["1"]}', json('{"n":1}'))).toBe(false);
    expect(matches('{"n":[true]}', json('{"n":1}'))).toBe(false);
    expect(matches('{"n":[false]}', json('{"n":0}'))).toBe(false);
    expect(matches('{"n":[1.5]}', json('{"n":1.50}'))).toBe(true);
    // More primitives than the short-list path: the Set keeps them apart too.
    const many = { n: [1, '2', true, null, 0.5] };
    expect([1, '2', true, null, 0.5].every((n) => matches(many, { n }))).toBe(true);
    expect(['1', 2, 'true', false, 'null', 0].some((n) => matches(many, { n }))).toBe(false);
  });

  it('objects and arrays as allowed values compare by JSON deep equality', () => {
    const filter = { head: [{ ref: 'main', ids: [1, 2] }] };
    expect(matches(filter, { head: { ids: [1, 2], ref: 'main' } })).toBe(true);
    expect(matches(filter, json('{"head":{"ids":[1.0,2],"ref":"main"}}'))).toBe(true);
    expect(matches(filter, { head: { ref: 'main' } })).toBe(false);
    expect(matches(filter, { head: { ref: 'main', ids: [1, 2], extra: 0 } })).toBe(false);
    expect(matches(filter, { head: { ref: 'main', ids: [2, 1] } })).toBe(false);
    expect(matches(filter, { head: { ref: 'main', ids: [1, 2, 3] } })).toBe(false);
    expect(matches(filter, { head: [{ ref: 'main', ids: [1, 2] }] })).toBe(true); // an element is allowed
    expect(matches({ o: [{}] }, { o: {} })).toBe(true);
    expect(matches({ o: [{}] }, { o: [] })).toBe(false);
    expect(matches({ o: [{ a: null }] }, { o: {} })).toBe(false);
    // A key holding undefined is not in the JSON, so it is not there (non-JSON payloads only).
    expect(matches({ o: [{ a: 1 }] }, { o: { a: 1, b: undefined } })).toBe(true);
  });

  describe('arrays in the payload', () => {
    it('in holds when any element is allowed', () => {
      const filter = { labels: ['bug'] };
      expect(matches(filter, { labels: ['ui', 'bug'] })).toBe(true);
      expect(matches(filter, { labels: ['ui'] })).toBe(false);
      expect(matches(filter, { labels: [] })).toBe(false);
      expect(matches({ n: [1] }, { n: [3, 2, 1.0] })).toBe(true);
    });

    it('in holds when the whole array equals an allowed value', () => {
      expect(matches({ tags: [['a', 'b']] }, { tags: ['a', 'b'] })).toBe(true);
      expect(matches({ tags: [['a', 'b']] }, { tags: ['b', 'a'] })).toBe(false);
      expect(matches({ tags: [[]] }, { tags: [] })).toBe(true);
      expect(matches({ tags: [[1]] }, { tags: [[1]] })).toBe(true); // an element equals [1]
    });

    it('elements are not flattened further', () => {
      expect(matches({ n: [1] }, { n: [[1]] })).toBe(false);
      expect(matches({ n: { not_in: [1] } }, { n: [[1]] })).toBe(true);
    });

    it('not_in holds when no element is excluded, nor the whole array', () => {
      const filter = { labels: { not_in: ['wontfix'] } };
      expect(matches(filter, { labels: ['bug'] })).toBe(true);
      expect(matches(filter, { labels: ['bug', 'wontfix'] })).toBe(false);
      expect(matches(filter, { labels: [] })).toBe(true);
      expect(matches({ p: { not_in: [[1, 2]] } }, { p: [1, 2] })).toBe(false);
      expect(matches({ p: { not_in: [[1, 2]] } }, { p: [1] })).toBe(true);
      expect(matches({ p: { not_in: [[]] } }, { p: [] })).toBe(false);
    });

    it('a nested filter holds when any element object matches it, all its keys on one element', () => {
      const filter = { commits: { author: { name: ['ann'] } } };
      expect(matches(filter, { commits: [{ author: { name: 'bob' } }, { author: { name: 'ann' } }] })).toBe(true);
      expect(matches(filter, { commits: [{ author: { name: 'bob' } }] })).toBe(false);
      expect(matches(filter, { commits: [] })).toBe(false);
      expect(matches(filter, { commits: ['ann', null, 1, [{ author: { name: 'ann' } }]] })).toBe(false);
      const both = { items: { a: [1], b: [2] } };
      expect(matches(both, { items: [{ a: 1 }, { b: 2 }] })).toBe(false);
      expect(matches(both, { items: [{ a: 1 }, { a: 1, b: 2 }] })).toBe(true);
      // Arrays at several levels: any element at each.
      expect(matches({ a: { b: { c: [1] } } }, { a: [{ b: [{ c: 0 }, { c: [5, 1] }] }] })).toBe(true);
    });
  });

  describe('negative conditions through arrays: no element may be excluded (docs/filters.md, "Negative conditions")', () => {
    const notWip = { pull_request: { labels: { name: { not_in: ['wip'] } } } };
    const pr = (labels: unknown) => ({ action: 'opened', pull_request: { number: 7, labels } });

    it('"not labelled wip": a pull request labelled wip and ship-it does not trigger, ship-it alone does', () => {
      expect(matches(notWip, pr([{ name: 'wip' }, { name: 'ship-it' }]))).toBe(false);
      expect(matches(notWip, pr([{ name: 'ship-it' }, { name: 'wip' }]))).toBe(false);
      expect(matches(notWip, pr([{ name: 'ship-it' }]))).toBe(true);
      expect(matches(notWip, pr([{ name: 'ship-it' }, { name: 'agent' }]))).toBe(true);
    });

    it('"not labelled wip": no labels, null, or no pull request at all triggers (nothing to exclude)', () => {
      expect(matches(notWip, pr([]))).toBe(true);
      expect(matches(notWip, pr(null))).toBe(true);
      expect(matches(notWip, { action: 'opened', pull_request: { number: 7 } })).toBe(true);
      expect(matches(notWip, { action: 'opened' })).toBe(true);
      // Elements that are not objects are not looked into, as for positive conditions.
      expect(matches(notWip, pr(['wip', [{ name: 'wip' }], null]))).toBe(true);
      // A label without a name has no excluded name.
      expect(matches(notWip, pr([{ id: 1 }, { name: null }]))).toBe(true);
    });

    it('an array value of the leaf is compared whole and by element, on every element object', () => {
      const filter = { labels: { name: { not_in: ['wip', ['a', 'b']] } } };
      expect(matches(filter, { labels: [{ name: ['x', 'wip'] }] })).toBe(false);
      expect(matches(filter, { labels: [{ name: 'x' }, { name: ['a', 'b'] }] })).toBe(false);
      expect(matches(filter, { labels: [{ name: ['b', 'a'] }, { name: [['wip']] }] })).toBe(true);
    });

    it('a positive condition beside it still needs one element: "has a label, and none is wip"', () => {
      const filter = { labels: { name: { exists: true, not_in: ['wip'] } } };
      expect(matches(filter, { labels: [{ name: 'ship-it' }] })).toBe(true);
      expect(matches(filter, { labels: [{ name: 'ship-it' }, { name: 'wip' }] })).toBe(false);
      expect(matches(filter, { labels: [] })).toBe(false);
      expect(matches(filter, {})).toBe(false);
      expect(matches(filter, { labels: [{ id: 1 }] })).toBe(false);
    });

    it('in and not_in in one operator object: "labelled agent and not labelled wip"', () => {
      const filter = { labels: { name: { in: ['agent'], not_in: ['wip'] } } };
      expect(matches(filter, { labels: [{ name: 'agent' }] })).toBe(true);
      expect(matches(filter, { labels: [{ name: 'agent' }, { name: 'ship-it' }] })).toBe(true);
      expect(matches(filter, { labels: [{ name: 'agent' }, { name: 'wip' }] })).toBe(false);
      expect(matches(filter, { labels: [{ name: 'wip' }] })).toBe(false);
      expect(matches(filter, { labels: [{ name: 'ship-it' }] })).toBe(false);
      expect(matches(filter, { labels: [] })).toBe(false);
      // Written the other way round, the same.
      expect(matches({ labels: { name: { not_in: ['wip'], in: ['agent'] } } }, { labels: [{ name: 'agent' }, { name: 'wip' }] })).toBe(
        false,
      );
    });

    it('positive and negative keys in one nested filter: positive ones on one element, negative ones on all', () => {
      const filter = { labels: { name: ['agent'], color: { not_in: ['red'] } } };
      expect(
        matches(filter, {
          labels: [
            { name: 'agent', color: 'green' },
            { name: 'bug', color: 'blue' },
          ],
        }),
      ).toBe(true);
      expect(
        matches(filter, {
          labels: [
            { name: 'agent', color: 'green' },
            { name: 'bug', color: 'red' },
          ],
        }),
      ).toBe(false);
      expect(matches(filter, { labels: [{ name: 'agent', color: 'red' }] })).toBe(false);
      expect(matches(filter, { labels: [{ name: 'agent' }] })).toBe(true);
      expect(matches(filter, { labels: [{ color: 'green' }] })).toBe(false);
      // Positive keys still meet on one element.
      const both = { labels: { name: ['agent'], color: ['green'], id: { exists: false } } };
      expect(matches(both, { labels: [{ name: 'agent' }, { color: 'green' }] })).toBe(false);
      expect(matches(both, { labels: [{ name: 'agent', color: 'green' }] })).toBe(true);
      expect(matches(both, { labels: [{ name: 'agent', color: 'green' }, { id: 3 }] })).toBe(false);
    });

    it('exists: false through an array: no element has the key', () => {
      const filter = { a: { b: { exists: false } } };
      expect(matches(filter, { a: [{}, { c: 1 }] })).toBe(true);
      expect(matches(filter, { a: [{}, { b: null }] })).toBe(false);
      expect(matches(filter, { a: [{ b: 1 }, {}] })).toBe(false);
      expect(matches(filter, { a: [] })).toBe(true);
    });

    it('arrays at several levels are each looked through; arrays inside arrays are not', () => {
      const filter = { a: { b: { c: { not_in: [1] } } } };
      expect(matches(filter, { a: [{ b: [{ c: 2 }] }, { b: [{ c: 3 }, { c: 1 }] }] })).toBe(false);
      expect(matches(filter, { a: [{ b: [{ c: 2 }] }, { b: { c: 1 } }] })).toBe(false);
      expect(matches(filter, { a: [{ b: [{ c: 2 }] }, { b: [{ c: 3 }, {}] }, { b: [] }, {}] })).toBe(true);
      expect(matches(filter, { a: [[{ b: { c: 1 } }]] })).toBe(true);
      expect(matches(filter, { a: [{ b: [[{ c: 1 }]] }] })).toBe(true);
      // Negative at a deeper level, positive above it: one element of a, and none of any b excluded.
      const mixed = { a: { id: [1], b: { c: { not_in: [1] } } } };
      expect(
        matches(mixed, {
          a: [
            { id: 1, b: [{ c: 2 }] },
            { id: 2, b: [{ c: 1 }] },
          ],
        }),
      ).toBe(false);
      expect(
        matches(mixed, {
          a: [
            { id: 1, b: [{ c: 2 }] },
            { id: 2, b: [{ c: 3 }] },
          ],
        }),
      ).toBe(true);
    });

    it('an empty nested filter counts as positive: it needs an element object to be on', () => {
      const filter = { a: { b: {}, c: { not_in: [1] } } };
      expect(matches(filter, { a: [] })).toBe(false);
      expect(matches(filter, { a: [{}] })).toBe(true);
      expect(matches(filter, { a: [{}, { c: 1 }] })).toBe(false);
    });

    it('keys named like Object.prototype members work through arrays too', () => {
      const filter = json('{"a": {"__proto__": {"not_in": [1]}, "constructor": {"exists": false}}}') as PayloadFilter;
      expect(matches(filter, json('{"a": [{"__proto__": 2}, {}]}'))).toBe(true);
      expect(matches(filter, json('{"a": [{"__proto__": 2}, {"__proto__": 1}]}'))).toBe(false);
      expect(matches(filter, json('{"a": [{}, {"constructor": 0}]}'))).toBe(false);
      // Only own keys: an inherited __proto__ of 1 is not there.
      expect(matches(filter, { a: [{}, Object.create(json('{"__proto__": 1}') as object)] })).toBe(true);
    });

    it('at the top level and on single objects nothing changes: one object is every element', () => {
      expect(matches({ labels: { not_in: ['wip'] } }, { labels: ['ship-it', 'wip'] })).toBe(false);
      expect(matches({ pr: { name: { not_in: ['wip'] } } }, { pr: { name: 'wip' } })).toBe(false);
      expect(matches({ pr: { name: { not_in: ['wip'] } } }, { pr: { name: 'ok' } })).toBe(true);
      expect(matches({ name: { not_in: ['wip'] } }, [{ name: 'ok' }])).toBe(false);
    });
  });

  describe('nested filters', () => {
    const filter = { pull_request: { base: { ref: ['main'] }, draft: [false] } };

    it('reach nested fields', () => {
      expect(matches(filter, { pull_request: { base: { ref: 'main' }, draft: false } })).toBe(true);
      expect(matches(filter, { pull_request: { base: { ref: 'develop' }, draft: false } })).toBe(false);
      expect(matches(filter, { pull_request: { base: { ref: 'main' }, draft: true } })).toBe(false);
    });

    it('need an object (or an array with one) where they look for a positive condition: missing, null or a scalar fails', () => {
      for (const pr of [undefined, null, 'main', 0, true, [], ['main']]) {
        expect(matches(filter, pr === undefined ? {} : { pull_request: pr })).toBe(false);
      }
      // A positive condition beside negative ones still needs the object.
      const mixed = { a: { b: { exists: false }, c: { exists: true } } };
      for (const a of [undefined, null, 'x', [], [1]]) expect(matches(mixed, a === undefined ? {} : { a })).toBe(false);
      expect(matches(mixed, { a: { c: 1 } })).toBe(true);
      expect(matches(mixed, { a: { b: 1, c: 1 } })).toBe(false);
    });

    it('with only negative conditions, hold where there is nothing to look into', () => {
      for (const a of [undefined, null, 'x', 0, false, [], ['x', 1, [{ b: 1 }]]]) {
        const payload = a === undefined ? {} : { a };
        expect(matches({ a: { b: { exists: false } } }, payload)).toBe(true);
        expect(matches({ a: { b: { not_in: [1] } } }, payload)).toBe(true);
      }
      expect(matches({ a: { b: { exists: false } } }, { a: {} })).toBe(true);
      expect(matches({ a: { b: { exists: false } } }, { a: { b: null } })).toBe(false);
      expect(matches({ a: { b: { not_in: [1] } } }, { a: { b: 1 } })).toBe(false);
    });

    it('an empty nested filter has no conditions, so it holds, even on a missing key', () => {
      for (const payload of [{}, { a: null }, { a: 1 }, { a: {} }, { a: [] }, { a: [1] }]) expect(matches({ a: {} }, payload)).toBe(true);
      // `{ b: {} }` has a key, so it is not empty: it needs an object to look into.
      expect(matches({ a: { b: {} } }, {})).toBe(false);
      expect(matches({ a: { b: {} } }, { a: {} })).toBe(true);
      expect(matches({ a: {}, b: [1] }, { b: 2 })).toBe(false);
    });

    it('a key with a dot is one key, not a path', () => {
      expect(matches({ 'a.b': [1] }, { 'a.b': 1 })).toBe(true);
      expect(matches({ 'a.b': [1] }, { a: { b: 1 } })).toBe(false);
    });
  });

  it('a non-object payload matches only the empty filter', () => {
    const filter = { action: { exists: false } };
    for (const payload of [[], [{}], [{ action: 'x' }], 'opened', '', 0, 1, true, false, null, undefined]) {
      expect(matches(filter, payload)).toBe(false);
      expect(matches({ action: { not_in: ['x'] } }, payload)).toBe(false);
      expect(matches({ a: {} }, payload)).toBe(false); // a key, even without conditions, is not the empty filter
    }
  });

  describe('only own properties are read', () => {
    it('keys named like Object.prototype members are ordinary keys in the payload', () => {
      for (const key of ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__', '__defineGetter__', 'isPrototypeOf']) {
        const filter = JSON.parse(`{${JSON.stringify(key)}: {"exists": false}}`);
        expect(matches(filter, {}), key).toBe(true);
        expect(matches(JSON.parse(`{${JSON.stringify(key)}: {"exists": true}}`), {}), key).toBe(false);
        expect(matches(JSON.parse(`{${JSON.stringify(key)}: {"not_in": ["x"]}}`), {}), key).toBe(true);
        const payload = JSON.parse(`{${JSON.stringify(key)}: "x"}`);
        expect(matches(JSON.parse(`{${JSON.stringify(key)}: ["x"]}`), payload), key).toBe(true);
        expect(matches(JSON.parse(`{${JSON.stringify(key)}: ["y"]}`), payload), key).toBe(false);
        expect(matches(JSON.parse(`{${JSON.stringify(key)}: {"exists": false}}`), payload), key).toBe(false);
      }
    });

    it('__proto__ in the filter and in the payload is a key like any other, nested too', () => {
      const filter = json('{"__proto__": {"__proto__": {"constructor": ["c"]}}}') as PayloadFilter;
      expect(Object.keys(filter)).toEqual(['__proto__']);
      expect(matches(filter, json('{"__proto__": {"__proto__": {"constructor": "c"}}}'))).toBe(true);
      expect(matches(filter, json('{"__proto__": {"__proto__": {"constructor": "d"}}}'))).toBe(false);
      expect(matches(filter, json('{"__proto__": {"constructor": "c"}}'))).toBe(false);
      expect(matches(filter, {})).toBe(false);
      // The allowed value may hold __proto__ too.
      expect(matches('{"o": [{"__proto__": 1}]}', json('{"o": {"__proto__": 1}}'))).toBe(true);
      expect(matches('{"o": [{"__proto__": 1}]}', { o: {} })).toBe(false);
    });

    it('a payload own hasOwnProperty or __proto__ cannot fool the matcher', () => {
      expect(matches({ a: [1] }, json('{"hasOwnProperty": "nope", "a": 1}'))).toBe(true);
      expect(matches({ a: [1] }, json('{"__proto__": {"a": 1}}'))).toBe(false);
      expect(matches({ a: [1] }, { __proto__: { a: 1 } })).toBe(false); // a real prototype
    });

    it('objects with another prototype, or none: only their own keys count', () => {
      class Event {
        get action() {
          return 'opened';
        }
      }
      Object.defineProperty(Event.prototype, 'kind', { value: 'pr' });
      const event = new Event();
      expect(matches({ action: ['opened'] }, event)).toBe(false);
      expect(matches({ kind: { exists: false } }, event)).toBe(true);
      expect(matches({ kind: ['pr'] }, event)).toBe(false);
      const bare = Object.assign(Object.create(null), { action: 'opened' });
      expect(matches({ action: ['opened'] }, bare)).toBe(true);
      expect(matches({ toString: { exists: false } }, bare)).toBe(true);
      expect(matches({ a: { action: ['opened'] } }, { a: bare })).toBe(true);
      expect(matches({ a: { action: ['opened'] } }, { a: Object.create({ action: 'opened' }) })).toBe(false);
    });

    it('a polluted Object.prototype is not read, even by a matcher compiled and warmed before', () => {
      const filter = { polluted: ['yes'], nested: { polluted: { exists: false } } };
      const matcher = compileFilter(filter);
      const clean = { polluted: 'yes', nested: {} };
      for (let i = 0; i < 10_000; i++) matcher(clean); // let the optimiser settle on the fast path
      const proto = Object.prototype as Record<string, unknown>;
      try {
        proto.polluted = 'yes';
        expect(matcher({ nested: {} })).toBe(false);
        expect(matcher(clean)).toBe(true);
        expect(matcher({ polluted: 'yes', nested: { x: 1 } })).toBe(true);
        expect(compileFilter({ polluted: { exists: true } })({})).toBe(false);
      } finally {
        delete proto.polluted;
      }
    });
  });

  it('never recurses into the payload: a deep or cyclic payload is fine', () => {
    let deep: unknown = { leaf: true };
    for (let i = 0; i < 100_000; i++) deep = { a: deep, list: [deep] };
    expect(matches({ a: { a: { a: { leaf: { exists: false } } } } }, deep)).toBe(true);
    expect(matches({ a: [{ x: 1 }] }, deep)).toBe(false);
    const cyclic: Record<string, unknown> = { n: 1 };
    cyclic.self = cyclic;
    cyclic.list = [cyclic];
    expect(matches({ self: { self: { n: [1] } } }, cyclic)).toBe(true);
    expect(matches({ self: [{ n: 1 }], list: { not_in: [[{ n: 1 }]] } }, cyclic)).toBe(false);
    expect(matches({ list: { self: { n: [1] } } }, cyclic)).toBe(true);
  });

  it('compileFilter checks the filter first and refuses an invalid one', () => {
    expect(() => compileFilter({ action: 'opened' } as unknown as PayloadFilter)).toThrow(AgentRunError);
    expect(() => compileFilter({ action: 'opened' } as unknown as PayloadFilter)).toThrow('payload.action: must be an array');
  });

  it('the compiled matcher does not see later changes to the filter object', () => {
    const filter = { action: ['opened'] } as { action: string[] };
    const matcher = compileFilter(filter);
    filter.action.push('closed');
    expect(matcher({ action: 'closed' })).toBe(false);
  });
});

describe('the examples of docs/filters.md', () => {
  it('GitHub: opened or updated pull requests into main, not drafts, not from bots, labelled agent', () => {
    const matcher = compileFilter({
      action: ['opened', 'synchronize', 'reopened'],
      pull_request: { base: { ref: ['main'] }, draft: [false], labels: { name: ['agent'] } },
      sender: { type: { not_in: ['Bot'] } },
    });
    const event = (over: Record<string, unknown> = {}, pr: Record<string, unknown> = {}) => ({
      action: 'opened',
      pull_request: { base: { ref: 'main' }, draft: false, labels: [{ name: 'bug' }, { name: 'agent' }], ...pr },
      sender: { login: 'ann', type: 'User' },
      ...over,
    });
    expect(matcher(event())).toBe(true);
    expect(matcher(event({ action: 'closed' }))).toBe(false);
    expect(matcher(event({}, { draft: true }))).toBe(false);
    expect(matcher(event({}, { labels: [{ name: 'bug' }] }))).toBe(false);
    expect(matcher(event({}, { labels: [] }))).toBe(false);
    expect(matcher(event({ sender: { login: 'dependabot[bot]', type: 'Bot' } }))).toBe(false);
  });

  it('Stripe: paid invoices in live mode, in dollars, with a metadata marker; amounts match exactly', () => {
    const matcher = compileFilter({
      type: ['invoice.paid'],
      livemode: [true],
      data: { object: { currency: ['usd'], metadata: { agent_review: { exists: true } } } },
    });
    const event = (object: Record<string, unknown>, type = 'invoice.paid') => ({ type, livemode: true, data: { object } });
    expect(matcher(event({ currency: 'usd', amount_paid: 5000, metadata: { agent_review: 'yes' } }))).toBe(true);
    expect(matcher(event({ currency: 'usd', amount_paid: 5000, metadata: {} }))).toBe(false);
    expect(matcher(event({ currency: 'eur', metadata: { agent_review: 'yes' } }))).toBe(false);
    expect(matcher(event({ currency: 'usd', metadata: { agent_review: 'yes' } }, 'invoice.payment_failed'))).toBe(false);
    const exact = compileFilter({ data: { object: { amount_paid: [5000] } } });
    expect(exact(event({ amount_paid: 5000 }))).toBe(true);
    expect(exact(event({ amount_paid: 5001 }))).toBe(false);
  });

  it('Sentry: new error or fatal issues in two projects; a dotted key is one key', () => {
    const matcher = compileFilter({
      action: ['created'],
      data: { issue: { level: ['error', 'fatal'], project: { slug: ['api', 'web'] } } },
    });
    const event = (level: string, slug: string, action = 'created') => ({ action, data: { issue: { level, project: { slug } } } });
    expect(matcher(event('error', 'api'))).toBe(true);
    expect(matcher(event('fatal', 'web'))).toBe(true);
    expect(matcher(event('warning', 'api'))).toBe(false);
    expect(matcher(event('error', 'cli'))).toBe(false);
    expect(matcher(event('error', 'api', 'resolved'))).toBe(false);
    expect(compileFilter({ 'data.issue.level': ['error'] })(event('error', 'api'))).toBe(false);
  });
});

describe('explainFilter', () => {
  const filter: PayloadFilter = {
    action: ['opened', 'synchronize'],
    pull_request: { base: { ref: ['main'] }, draft: [false] },
    repository: { full_name: { not_in: ['acme/legacy'] } },
  };
  const pr = (over: { action?: string; ref?: string; draft?: boolean; repo?: string }) => ({
    action: over.action ?? 'opened',
    pull_request: { base: { ref: over.ref ?? 'main' }, draft: over.draft ?? false },
    repository: { full_name: over.repo ?? 'acme/api' },
  });

  it('says matched when it matches', () => {
    expect(explainFilter(filter, pr({}))).toEqual({ matched: true });
    expect(explainFilter({}, 'anything')).toEqual({ matched: true });
  });

  it('names the first failing path in filter order, and why', () => {
    expect(explainFilter(filter, pr({ ref: 'develop' }))).toEqual({
      matched: false,
      path: 'pull_request.base.ref',
      reason: '"develop" is not one of ["main"]',
    });
    expect(explainFilter(filter, pr({ action: 'closed', ref: 'develop' }))).toEqual({
      matched: false,
      path: 'action',
      reason: '"closed" is not one of ["opened","synchronize"]',
    });
    expect(explainFilter(filter, pr({ draft: true }))).toMatchObject({ path: 'pull_request.draft', reason: 'true is not one of [false]' });
    expect(explainFilter(filter, pr({ repo: 'acme/legacy' }))).toMatchObject({
      path: 'repository.full_name',
      reason: '"acme/legacy" is excluded by not_in ["acme/legacy"]',
    });
  });

  it('explains missing keys, exists, arrays and non-objects', () => {
    expect(explainFilter(filter, {})).toMatchObject({ path: 'action', reason: 'is missing; expected one of ["opened","synchronize"]' });
    expect(explainFilter({ a: { exists: true } }, {})).toMatchObject({ path: 'a', reason: 'is missing; exists: true requires it' });
    expect(explainFilter({ a: { exists: false } }, { a: null })).toMatchObject({
      path: 'a',
      reason: 'is present (null); exists: false requires it to be missing',
    });
    expect(explainFilter({ l: ['bug'] }, { l: ['ui', 'docs'] })).toMatchObject({
      path: 'l',
      reason: '["ui","docs"] has no element that is one of ["bug"]',
    });
    expect(explainFilter({ l: { not_in: ['wontfix'] } }, { l: ['ui', 'wontfix'] })).toMatchObject({
      path: 'l',
      reason: 'has the element "wontfix", which not_in ["wontfix"] excludes',
    });
    expect(explainFilter({ a: { in: [1, 2], not_in: [2] } }, { a: 2 })).toMatchObject({ path: 'a', reason: '2 is excluded by not_in [2]' });
    expect(explainFilter(filter, ['opened'])).toEqual({ matched: false, path: '', reason: 'the payload is an array, not an object' });
    expect(explainFilter(filter, null)).toMatchObject({ path: '', reason: 'the payload is null, not an object' });
    expect(explainFilter(filter, { ...pr({}), pull_request: 'x' })).toMatchObject({
      path: 'pull_request',
      reason: 'is a string, not an object',
    });
    expect(explainFilter(filter, { ...pr({}), pull_request: undefined })).toMatchObject({
      path: 'pull_request',
      reason: 'is missing; the nested filter needs an object here',
    });
    expect(explainFilter({ commits: { author: ['ann'] } }, { commits: [1, { author: 'bob' }] })).toMatchObject({
      path: 'commits',
      reason: 'no element of the array matches the nested filter; commits[1].author: "bob" is not one of ["ann"]',
    });
    expect(explainFilter({ commits: { author: ['ann'] } }, { commits: [1, 2] })).toMatchObject({
      path: 'commits',
      reason: 'is an array of 2 element(s) and none is an object',
    });
  });

  describe('negative conditions through arrays', () => {
    const notWip: PayloadFilter = { action: ['opened'], pull_request: { labels: { name: { not_in: ['wip'] } } } };
    const pr = (labels: unknown) => ({ action: 'opened', pull_request: { labels } });

    it('"not labelled wip": names the condition and the excluded element', () => {
      expect(explainFilter(notWip, pr([{ name: 'ship-it' }, { name: 'wip' }]))).toEqual({
        matched: false,
        path: 'pull_request.labels.name',
        reason: 'pull_request.labels[1].name is "wip", which not_in ["wip"] excludes',
      });
      expect(explainFilter(notWip, pr([{ name: 'ship-it' }]))).toEqual({ matched: true });
      expect(explainFilter(notWip, pr([]))).toEqual({ matched: true });
      expect(explainFilter(notWip, { action: 'opened' })).toEqual({ matched: true });
    });

    it('says which element of an array value, and what exists: false found', () => {
      expect(explainFilter(notWip, pr([{ name: ['ship-it', 'wip'] }]))).toMatchObject({
        path: 'pull_request.labels.name',
        reason: 'pull_request.labels[0].name has the element "wip", which not_in ["wip"] excludes',
      });
      expect(
        explainFilter({ labels: { color: { exists: false } } }, { labels: [{ name: 'ci' }, 'x', { name: 'ui', color: 'red' }] }),
      ).toEqual({
        matched: false,
        path: 'labels.color',
        reason: 'labels[2].color is present ("red"); exists: false requires it to be missing',
      });
      // Operators in the order written.
      expect(explainFilter({ l: { n: { exists: false, not_in: [1] } } }, { l: [{ n: 1 }] })).toMatchObject({
        reason: 'l[0].n is present (1); exists: false requires it to be missing',
      });
    });

    it('names the first negative condition in filter order, then the first element in payload order', () => {
      const filter: PayloadFilter = { a: { x: { not_in: [1] }, b: { c: { not_in: [2] } }, y: { not_in: [3] } } };
      expect(explainFilter(filter, { a: [{ y: 3 }, { b: [{ c: 0 }, { c: 2 }] }, { x: 1 }] })).toMatchObject({
        path: 'a.x',
        reason: 'a[2].x is 1, which not_in [1] excludes',
      });
      expect(explainFilter(filter, { a: [{ y: 3 }, { b: [{ c: 0 }, { c: 2 }] }] })).toMatchObject({
        path: 'a.b.c',
        reason: 'a[1].b[1].c is 2, which not_in [2] excludes',
      });
      expect(explainFilter(filter, { a: [{ y: 3 }, { b: { c: 2 } }] })).toMatchObject({
        path: 'a.b.c',
        reason: 'a[1].b.c is 2, which not_in [2] excludes',
      });
      expect(explainFilter(filter, { a: [{ y: 3 }] })).toMatchObject({ path: 'a.y', reason: 'a[0].y is 3, which not_in [3] excludes' });
    });

    it('no element meeting the positive conditions comes first, explained on them alone', () => {
      const filter: PayloadFilter = { labels: { name: { not_in: ['wip'], in: ['agent', 'wip'] } } };
      expect(explainFilter(filter, { labels: [{ name: 'ship-it' }, { name: 'wip' }] })).toMatchObject({ path: 'labels.name' });
      expect(explainFilter(filter, { labels: [{ name: 'ship-it' }] })).toEqual({
        matched: false,
        path: 'labels',
        reason: 'no element of the array matches the nested filter; labels[0].name: "ship-it" is not one of ["agent","wip"]',
      });
      expect(explainFilter(filter, { labels: [] })).toMatchObject({
        path: 'labels',
        reason: 'is an array of 0 element(s) and none is an object',
      });
    });

    it('through a single object, as for any condition', () => {
      expect(explainFilter(notWip, { action: 'opened', pull_request: { labels: { name: 'wip' } } })).toMatchObject({
        path: 'pull_request.labels.name',
        reason: '"wip" is excluded by not_in ["wip"]',
      });
    });
  });

  it('quotes keys that are not identifiers, and shortens long values', () => {
    expect(explainFilter({ 'x-github-event': { a: ['b'] } }, { 'x-github-event': { a: 'c' } })).toMatchObject({
      path: '["x-github-event"].a',
    });
    const result = explainFilter({ body: ['short'] }, { body: 'x'.repeat(500) });
    expect(result.matched).toBe(false);
    if (!result.matched) expect(result.reason.length).toBeLessThan(200);
  });

  it('does not throw on values JSON cannot show', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(explainFilter({ self: ['x'] }, cyclic)).toMatchObject({ path: 'self', reason: 'an object is not one of ["x"]' });
    expect(explainFilter({ n: [1] }, { n: 10n })).toMatchObject({ path: 'n', reason: 'a bigint is not one of [1]' });
  });
});
