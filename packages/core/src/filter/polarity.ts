import { classifyCondition } from './operators.js';
import type { FilterCondition, FilterOperators, PayloadFilter } from './types.js';

/**
 * A nested filter split by what it asks (docs/filters.md, "Negative conditions"): its positive part
 * (`in`, a bare list, `exists: true`, an empty nested filter) says what must be there, its negative
 * part (`not_in`, `exists: false`) what must not be. Over an array the two differ: the positive
 * part must hold on one element, the negative part on every element. Either is `undefined` when
 * the filter has none; a non-empty filter always has one or the other.
 */
interface SplitFilter {
  readonly positive: PayloadFilter | undefined;
  readonly negative: PayloadFilter | undefined;
}

interface SplitCondition {
  readonly positive: FilterCondition | undefined;
  readonly negative: FilterCondition | undefined;
}

/** Whether one operator of an operator object is negative: the ones that hold on a missing key. */
const isNegative = (operators: FilterOperators, name: string): boolean =>
  name === 'not_in' || (name === 'exists' && operators.exists === false);

/**
 * Split a non-empty filter of a parsed filter, at every level. Keys and operators keep their order
 * (explain follows it), and the parts are fresh objects built by definition, so a key named
 * `__proto__` stays a key.
 */
export function splitFilter(filter: PayloadFilter): SplitFilter {
  const positive: [string, FilterCondition][] = [];
  const negative: [string, FilterCondition][] = [];
  for (const key of Object.keys(filter)) {
    const part = splitCondition(filter[key] as FilterCondition);
    if (part.positive !== undefined) positive.push([key, part.positive]);
    if (part.negative !== undefined) negative.push([key, part.negative]);
  }
  return {
    positive: positive.length === 0 ? undefined : (Object.fromEntries(positive) as PayloadFilter),
    negative: negative.length === 0 ? undefined : (Object.fromEntries(negative) as PayloadFilter),
  };
}

function splitCondition(condition: FilterCondition): SplitCondition {
  const classified = classifyCondition(condition);
  switch (classified.kind) {
    case 'list':
      return { positive: condition, negative: undefined };
    case 'operators': {
      const { operators } = classified;
      const names = Object.keys(operators);
      const pick = (negative: boolean) => {
        const chosen = names.filter((name) => isNegative(operators, name) === negative);
        return chosen.length === 0
          ? undefined
          : (Object.fromEntries(chosen.map((name) => [name, operators[name as keyof FilterOperators]])) as FilterOperators);
      };
      return { positive: pick(false), negative: pick(true) };
    }
    case 'nested':
      // `{}` holds whatever is there; it counts as positive, so `{ "b": {} }` still needs an object.
      if (Object.keys(classified.filter).length === 0) return { positive: condition, negative: undefined };
      return splitFilter(classified.filter);
  }
}
