import type { FilterCondition, FilterOperators, JsonValue, PayloadFilter } from './types.js';

/** Whether a key is an operator; one such key makes an object an operator object, not a nested filter. */
export const isOperatorKey = (key: string): boolean => key === 'in' || key === 'not_in' || key === 'exists';

/** The three shapes a condition takes. Decided by its own keys only, so `{}` is a nested filter. */
export type ClassifiedCondition =
  | { kind: 'list'; values: readonly JsonValue[] }
  | { kind: 'operators'; operators: FilterOperators }
  | { kind: 'nested'; filter: PayloadFilter };

/** Classify a condition of a parsed filter (`parseFilter` has rejected mixed objects). */
export function classifyCondition(condition: FilterCondition): ClassifiedCondition {
  if (Array.isArray(condition)) return { kind: 'list', values: condition };
  const keys = Object.keys(condition);
  if (keys.length > 0 && keys.every(isOperatorKey)) return { kind: 'operators', operators: condition as FilterOperators };
  return { kind: 'nested', filter: condition as PayloadFilter };
}
