// The payload filter module (docs/filters.md): parse when an automation is saved, compile once,
// match every delivery, explain for Test filter.
export { compileFilter } from './compile.js';
export { explainFilter, type FilterExplanation } from './explain.js';
export { FILTER_LIMITS } from './limits.js';
export { parseFilter } from './parse.js';
export type { FilterCondition, FilterOperators, JsonValue, PayloadFilter, PayloadMatcher } from './types.js';
