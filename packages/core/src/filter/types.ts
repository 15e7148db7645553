/** A JSON value, as `JSON.parse` produces it. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * The operators (docs/filters.md, "The three shapes of a key"). Several in one object must all
 * hold. `not_in` and `exists: false` are negative: under a nested filter over an array they hold
 * only when no element breaks them (docs/filters.md, "Negative conditions").
 */
export interface FilterOperators {
  /** The value (or, for an array, one of its elements) equals one of these. */
  readonly in?: readonly JsonValue[];
  /** Neither the value nor any element of it equals one of these; a missing key passes. */
  readonly not_in?: readonly JsonValue[];
  /** The key is present (`null` counts as present) or, with `false`, missing. */
  readonly exists?: boolean;
}

/** What one filter key holds: allowed values (same as `{ in: [...] }`), operators, or a nested filter. */
export type FilterCondition = readonly JsonValue[] | FilterOperators | PayloadFilter;

/**
 * A payload filter (docs/filters.md): a JSON object mirroring the delivery body; every key must
 * match.
 */
export interface PayloadFilter {
  readonly [key: string]: FilterCondition;
}

/**
 * A compiled filter: whether a payload matches. Never throws on any JSON value, nor on other
 * JavaScript values, unless the payload itself holds a getter or proxy trap that throws.
 */
export type PayloadMatcher = (payload: unknown) => boolean;
