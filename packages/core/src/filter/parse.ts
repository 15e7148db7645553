import { invalidRequest } from '../errors.js';
import { FILTER_LIMITS } from './limits.js';
import { isOperatorKey } from './operators.js';
import { childPath, indexPath } from './path.js';
import type { FilterCondition, FilterOperators, JsonValue, PayloadFilter } from './types.js';

const { maxDepth, maxKeys, maxValues, maxBytes } = FILTER_LIMITS;

/**
 * Check a payload filter against the rules of docs/filters.md and return a private copy of it.
 * Throws `AgentRunError('invalid_request')` whose message starts with the path of the first
 * problem, `path` being where the filter itself sits in the request (for example
 * `triggers[0].filter.payload`): `triggers[0].filter.payload.action.in: must be an array of at most
 * 256 values`.
 */
export function parseFilter(input: unknown, path = 'payload'): PayloadFilter {
  const counter = { keys: 0 };
  const filter = parseObject(input, path, 1, counter);
  // The walk above bounds depth, so stringifying cannot overflow the stack.
  const bytes = new TextEncoder().encode(JSON.stringify(filter)).byteLength;
  if (bytes > maxBytes) throw problem(path, `the filter is ${bytes} bytes of JSON; at most ${maxBytes} are allowed`);
  return filter;
}

const problem = (path: string, message: string) => invalidRequest(`${path}: ${message}`);

/** A JSON object: a plain object from any realm (not an array, a `Date`, a class instance, …). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/**
 * Copies get their keys by definition, not assignment: assigning `__proto__` would set the
 * prototype instead of creating the key.
 */
function defineKey(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A filter object whose keys sit at `depth` (1 for the top level). */
function parseObject(input: unknown, path: string, depth: number, counter: { keys: number }): PayloadFilter {
  if (!isPlainObject(input)) throw problem(path, 'must be a JSON object');
  const filter: Record<string, FilterCondition> = {};
  for (const key of Object.keys(input)) {
    const keyPath = childPath(path, key);
    if (depth > maxDepth) throw problem(keyPath, `the filter nests deeper than ${maxDepth} levels`);
    counter.keys += 1;
    if (counter.keys > maxKeys) throw problem(keyPath, `the filter has more than ${maxKeys} keys`);
    defineKey(filter, key, parseCondition(input[key], keyPath, depth, counter));
  }
  return filter;
}

function parseCondition(input: unknown, path: string, depth: number, counter: { keys: number }): FilterCondition {
  if (Array.isArray(input)) return parseList(input, path, depth);
  if (!isPlainObject(input)) {
    throw problem(path, 'must be an array of allowed values, an operator object (in, not_in, exists) or a nested filter object');
  }
  const keys = Object.keys(input);
  const operators = keys.filter(isOperatorKey);
  if (operators.length === 0) return parseObject(input, path, depth + 1, counter);
  const field = keys.find((key) => !isOperatorKey(key));
  if (field !== undefined) {
    throw problem(
      path,
      `mixes operators (${operators.join(', ')}) with the field ${JSON.stringify(field)}; ` +
        'an object holds either operators or nested fields',
    );
  }
  const parsed: { -readonly [K in keyof FilterOperators]: FilterOperators[K] } = {};
  for (const key of keys) {
    const value = input[key];
    if (key === 'exists') {
      if (typeof value !== 'boolean') throw problem(childPath(path, key), 'must be true or false');
      parsed.exists = value;
    } else {
      parsed[key as 'in' | 'not_in'] = parseList(value, childPath(path, key), depth);
    }
  }
  return parsed;
}

/** An allowed-values list; its values sit under the key at `depth`. */
function parseList(input: unknown, path: string, depth: number): JsonValue[] {
  if (!Array.isArray(input) || input.length > maxValues) throw problem(path, `must be an array of at most ${maxValues} values`);
  const values: JsonValue[] = [];
  for (let i = 0; i < input.length; i++) values.push(parseValue(input[i], indexPath(path, i), depth));
  return values;
}

/**
 * One allowed value: any JSON value. An object or array value nests one level below `depth`
 * and counts toward the depth limit, which keeps every comparison with it shallow.
 */
function parseValue(input: unknown, path: string, depth: number): JsonValue {
  if (input === null || typeof input === 'string' || typeof input === 'boolean') return input;
  if (typeof input === 'number') {
    if (Number.isFinite(input)) return input;
    throw problem(path, 'must be a JSON value (a finite number)');
  }
  if (Array.isArray(input) || isPlainObject(input)) {
    if (depth + 1 > maxDepth) throw problem(path, `the filter nests deeper than ${maxDepth} levels`);
    if (Array.isArray(input)) {
      const array: JsonValue[] = [];
      for (let i = 0; i < input.length; i++) array.push(parseValue(input[i], indexPath(path, i), depth + 1));
      return array;
    }
    const object: Record<string, JsonValue> = {};
    for (const key of Object.keys(input)) defineKey(object, key, parseValue(input[key], childPath(path, key), depth + 1));
    return object;
  }
  throw problem(path, 'must be a JSON value');
}
