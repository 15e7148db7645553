import { ARTIFACT_TYPES, RUN_SORT_KEYS, RUN_SOURCES } from '@agentrun/core/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  paramsOfSearch,
  parseRunSearch,
  printRunSearch,
  type RunSearch,
  SEARCH_KEYS,
  type SearchKey,
  searchFromParams,
} from '../src/app/run-search.js';

// The runs list's search box syntax (docs/dashboard.md, "Searching runs"), without a browser.

/** One character of any kind (astral ones too). */
const anyChar = fc.string({ unit: 'binary', minLength: 1, maxLength: 1 });

const valuesFor = (key: SearchKey): fc.Arbitrary<string> => {
  switch (key) {
    case 'source':
      return fc.constantFrom(...RUN_SOURCES);
    case 'artifact':
      return fc.constantFrom(...ARTIFACT_TYPES);
    case 'sort':
      return fc.constantFrom(...RUN_SORT_KEYS);
    case 'order':
      return fc.constantFrom('asc', 'desc');
    case 'limit':
      return fc.stringMatching(/^\d{1,4}$/);
    case 'after':
    case 'before':
    case 'updated':
      return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
    default:
      // Any text at all: spaces, quotes, backslashes, colons, other scripts.
      return fc.string({ minLength: 1, unit: fc.oneof(fc.constantFrom(' ', '"', '\\', ':', '\t', '\n'), anyChar) });
  }
};

const searches: fc.Arbitrary<RunSearch> = fc
  .record({
    filters: fc.record(Object.fromEntries(SEARCH_KEYS.map((k) => [k, valuesFor(k)])) as Record<SearchKey, fc.Arbitrary<string>>, {
      requiredKeys: [],
    }),
    text: fc.string({ minLength: 1, unit: fc.oneof(fc.constantFrom(' ', '"', '\\', ':', 'name:'), anyChar) }),
  })
  .chain(({ filters, text }) => fc.constantFrom<RunSearch>({ filters, text }, { filters }));

describe('the run search syntax', () => {
  it('reads back what it prints: parse(print(q)) = q', () => {
    fc.assert(
      fc.property(searches, (search) => {
        expect(parseRunSearch(printRunSearch(search))).toEqual({ search });
      }),
      { numRuns: 500 },
    );
  });

  it('answers any text with a search or an error, never a throw, and a parsed search prints to the same search', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.oneof(fc.constantFrom(' ', '"', '\\', ':', 'name:', 'source:api'), anyChar) }), (text) => {
        const parsed = parseRunSearch(text);
        if (parsed.error !== undefined) {
          expect(parsed.error.length).toBeGreaterThan(0);
          return;
        }
        expect(parseRunSearch(printRunSearch(parsed.search))).toEqual(parsed);
      }),
      { numRuns: 500 },
    );
  });

  it('reads filters and free text, keys in any case, enumerated values in their canonical case', () => {
    expect(parseRunSearch('  name:nightly Model:gpt-x flaky   creator:u1 source:webhook "login page"  test ')).toEqual({
      search: {
        filters: { name: 'nightly', model: 'gpt-x', creator: 'u1', source: 'WEBHOOK' },
        text: 'flaky login page test',
      },
    });
    expect(parseRunSearch('name:"my \\"big\\" config" artifact:pull_request sort:created_at order:asc limit:50')).toEqual({
      search: { filters: { name: 'my "big" config', artifact: 'PULL_REQUEST', sort: 'created_at', order: 'asc', limit: '50' } },
    });
    // A value may hold a colon; free text with one is quoted.
    expect(parseRunSearch('environment:env:1 "http://x.test/a"')).toEqual({
      search: { filters: { environment: 'env:1' }, text: 'http://x.test/a' },
    });
    expect(parseRunSearch('')).toEqual({ search: { filters: {} } });
  });

  it.each([
    ['colour:red', /Unknown filter "colour:".*name:.*put it in quotes/],
    ['state:FAILED', /Unknown filter "state:".*State picker/],
    ['__proto__:x', /Unknown filter "__proto__:"/],
    ['name:', /name: needs a value, e.g. name:nightly/],
    ['name:""', /name: needs a value/],
    ['source:email', /source:email is not one of API, CLI, WEBHOOK/],
    ['sort:newest', /sort:newest is not one of updated_at, created_at/],
    ['limit:ten', /limit:ten: give a whole number/],
    ['after:yesterday', /after:yesterday: give a time such as after:2026-11-28T09:00:00Z/],
    ['name:a name:b', /name: is given twice/],
    ['"unclosed phrase', /Unclosed quote: "unclosed phrase needs a closing "/],
    ['name:"open', /Unclosed quote/],
    ['"a"b', /Put a space after the closing quote of "a"/],
    ['ab"c', /A quote inside "ab"c"/],
    ['name:ab"c', /A quote inside "name:ab"c": quote the whole value/],
  ])('refuses %j, saying why', (text, message) => {
    const parsed = parseRunSearch(text);
    expect(parsed.search).toBeUndefined();
    expect(parsed.error).toMatch(message);
  });

  it('maps to the list query parameters and back', () => {
    const search: RunSearch = { filters: { name: 'n', model: 'm', schedule: 's1', after: '2026-01-01T00:00:00Z' }, text: 'fix it' };
    const params = paramsOfSearch(search);
    expect(params).toEqual([
      ['name', 'n'],
      ['model_id', 'm'],
      ['schedule_id', 's1'],
      ['created_after', '2026-01-01T00:00:00Z'],
      ['q', 'fix it'],
    ]);
    expect(searchFromParams(new URLSearchParams([...params, ['state', 'FAILED'], ['cursor', 'c']]))).toEqual(search);
  });
});
