import {
  allOfKeys,
  allOfValue,
  everyTest,
  existsTest,
  inTest,
  nestedTest,
  notInTest,
  type ObjectTest,
  type ValueTest,
} from './conditions.js';
import { isObjectValue } from './json-equal.js';
import { classifyCondition } from './operators.js';
import { parseFilter } from './parse.js';
import { splitFilter } from './polarity.js';
import type { FilterCondition, PayloadFilter, PayloadMatcher } from './types.js';
import { compileValueList } from './value-list.js';

const always: PayloadMatcher = () => true;
const alwaysValue: ValueTest = () => true;

/**
 * Compile a filter once into a matcher for many payloads (docs/filters.md, "Exact semantics"). The
 * filter is checked with `parseFilter` first (an invalid one throws `invalid_request`), so the
 * matcher works on a private copy of bounded depth, and a filter read back from a store as a plain
 * record can be passed as it is. The matcher is a tree of small closures that walks the filter, not
 * the payload: its cost and its recursion depend on the filter only, and it never throws.
 */
export function compileFilter(filter: PayloadFilter | Readonly<Record<string, unknown>>): PayloadMatcher {
  const parsed = parseFilter(filter);
  if (Object.keys(parsed).length === 0) return always;
  const matches = compileObject(parsed);
  // A non-object payload (array, string, null, …) matches only the empty filter.
  return (payload) => isObjectValue(payload) && matches(payload);
}

/** The test of a non-empty filter object against an object. */
function compileObject(filter: PayloadFilter): ObjectTest {
  return allOfKeys(Object.keys(filter).map((key) => keyTest(key, compileCondition(filter[key] as FilterCondition))));
}

/** The test of one key: its own value in the object (`undefined` when missing), judged by `test`. */
const keyTest =
  (key: string, test: ValueTest): ObjectTest =>
  (object) =>
    test(Object.hasOwn(object, key) ? object[key] : undefined);

/** The test of one condition against the value at its key (`undefined` when missing). */
export function compileCondition(condition: FilterCondition): ValueTest {
  const classified = classifyCondition(condition);
  switch (classified.kind) {
    case 'list':
      return inTest(compileValueList(classified.values));
    case 'operators': {
      const { operators } = classified;
      const tests: ValueTest[] = [];
      // In the order written: the cheapest first is the writer's call, and explain follows it too.
      for (const name of Object.keys(operators)) {
        if (name === 'in') tests.push(inTest(compileValueList(operators.in ?? [])));
        else if (name === 'not_in') tests.push(notInTest(compileValueList(operators.not_in ?? [])));
        else if (name === 'exists') tests.push(existsTest(operators.exists === true));
      }
      return allOfValue(tests);
    }
    case 'nested': {
      // A nested filter without conditions holds whatever is there, like `{}` at the top.
      if (Object.keys(classified.filter).length === 0) return alwaysValue;
      // One element must meet the positive conditions, every element the negative ones
      // (docs/filters.md, "Negative conditions"). Each part is split again one level down, where
      // it has only its own kind: a positive-only filter compiles as it always did.
      const { positive, negative } = splitFilter(classified.filter);
      const tests: ValueTest[] = [];
      if (positive !== undefined) tests.push(nestedTest(compileObject(positive)));
      if (negative !== undefined) tests.push(everyTest(compileObject(negative)));
      return allOfValue(tests);
    }
  }
}
