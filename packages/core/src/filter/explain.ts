import { compileCondition } from './compile.js';
import { isObjectValue } from './json-equal.js';
import { classifyCondition } from './operators.js';
import { parseFilter } from './parse.js';
import { childPath, indexPath } from './path.js';
import { splitFilter } from './polarity.js';
import type { FilterCondition, FilterOperators, JsonValue, PayloadFilter } from './types.js';
import { compileValueList } from './value-list.js';

/**
 * Why a payload does or does not match: the Test filter answer (docs/filters.md,
 * "Test filter: why a delivery does or does not match").
 */
export type FilterExplanation = { matched: true } | { matched: false; path: string; reason: string };

interface Failure {
  path: string;
  reason: string;
}

/**
 * Explain `compileFilter(filter)(payload)`: whether it matches and, if not, the first failing
 * path in filter order (`pull_request.base.ref`, `''` for the payload itself) and why
 * (`"develop" is not one of ["main"]`). Decisions come from the same compiled conditions as the
 * matcher; only the words are added here. Slower than the matcher (it compiles on every call and
 * formats values), so meant for the Test filter feature, not for deliveries.
 */
export function explainFilter(filter: PayloadFilter | Readonly<Record<string, unknown>>, payload: unknown): FilterExplanation {
  const parsed = parseFilter(filter);
  if (Object.keys(parsed).length === 0) return { matched: true };
  if (!isObjectValue(payload)) return { matched: false, path: '', reason: `the payload is ${describeKind(payload)}, not an object` };
  const failure = explainObject(parsed, payload, '');
  return failure === null ? { matched: true } : { matched: false, ...failure };
}

function explainObject(filter: PayloadFilter, object: Record<string, unknown>, path: string): Failure | null {
  for (const key of Object.keys(filter)) {
    const condition = filter[key] as FilterCondition;
    const value = Object.hasOwn(object, key) ? object[key] : undefined;
    const keyPath = childPath(path, key);
    if (compileCondition(condition)(value)) continue;
    const classified = classifyCondition(condition);
    if (classified.kind === 'nested') {
      // On an object a nested filter fails somewhere inside: name that deeper path.
      if (isObjectValue(value)) {
        const inner = explainObject(classified.filter, value, keyPath);
        if (inner !== null) return inner;
      }
      if (Array.isArray(value)) return explainNestedArray(classified.filter, value, keyPath);
    }
    return { path: keyPath, reason: explainCondition(condition, value, keyPath) };
  }
  return null;
}

/**
 * Why a nested filter fails on an array (docs/filters.md, "Negative conditions"): no element meets
 * its positive conditions (named at the array's path, as the filter's own failure comes before its
 * leaves'), else some element breaks a negative one: the first such condition in filter order, at
 * its own path, and the first element that breaks it.
 */
function explainNestedArray(filter: PayloadFilter, array: readonly unknown[], path: string): Failure {
  const { positive, negative } = splitFilter(filter);
  if (positive !== undefined && !compileCondition(positive)(array)) {
    return { path, reason: explainNested(positive, array, path) };
  }
  const excluded = negative === undefined ? null : firstExclusion(negative, objectsIn(array, path), path);
  return excluded ?? { path, reason: 'does not match' };
}

/** An object found in the payload, with its path there (`labels[1]`). */
interface Located {
  value: unknown;
  path: string;
}

/** What a negative condition looks through: an object itself, or the element objects of an array. */
function objectsIn(value: unknown, path: string): Located[] {
  if (!Array.isArray(value)) return isObjectValue(value) ? [{ value, path }] : [];
  const objects: Located[] = [];
  value.forEach((element, i) => {
    if (isObjectValue(element)) objects.push({ value: element, path: indexPath(path, i) });
  });
  return objects;
}

/**
 * The first value a negative-only filter excludes among `objects`: its conditions in filter order,
 * each tried on every value its path reaches, in payload order. `null` when none is excluded.
 */
function firstExclusion(filter: PayloadFilter, objects: readonly Located[], filterPath: string): Failure | null {
  for (const key of Object.keys(filter)) {
    const condition = filter[key] as FilterCondition;
    const keyPath = childPath(filterPath, key);
    const reached = objects.map(({ value, path }) => {
      const object = value as Record<string, unknown>;
      return { value: Object.hasOwn(object, key) ? object[key] : undefined, path: childPath(path, key) };
    });
    const classified = classifyCondition(condition);
    if (classified.kind === 'nested') {
      const inner = firstExclusion(
        classified.filter,
        reached.flatMap(({ value, path }) => objectsIn(value, path)),
        keyPath,
      );
      if (inner !== null) return inner;
      continue;
    }
    if (classified.kind !== 'operators') continue; // a negative part holds no lists
    const passes = compileCondition(condition);
    const found = reached.find(({ value }) => !passes(value));
    if (found !== undefined) return { path: keyPath, reason: explainExcluded(classified.operators, found) };
  }
  return null;
}

/**
 * Why a value found through an array breaks a negative operator (the first, in the order written):
 * its payload path, which names the element, then the rule.
 */
function explainExcluded(operators: FilterOperators, { value, path }: Located): string {
  for (const name of Object.keys(operators)) {
    const excluded = operators.not_in;
    if (name === 'not_in' && excluded !== undefined && !compileCondition({ not_in: excluded })(value)) {
      const contains = compileValueList(excluded);
      if (Array.isArray(value) && !contains(value)) {
        return `${path} has the element ${preview(value.find((e) => contains(e)))}, which not_in ${preview(excluded)} excludes`;
      }
      return `${path} is ${preview(value)}, which not_in ${preview(excluded)} excludes`;
    }
    if (name === 'exists' && operators.exists === false && value !== undefined) {
      return `${path} is present (${preview(value)}); exists: false requires it to be missing`;
    }
  }
  return `${path} is excluded`;
}

/** Why a condition that failed on `value` failed. */
function explainCondition(condition: FilterCondition, value: unknown, path: string): string {
  const classified = classifyCondition(condition);
  switch (classified.kind) {
    case 'list':
      return explainIn(classified.values, value);
    case 'operators': {
      const { operators } = classified;
      for (const name of Object.keys(operators)) {
        if (name === 'in' && !compileCondition({ in: operators.in ?? [] })(value)) return explainIn(operators.in ?? [], value);
        if (name === 'not_in' && !compileCondition({ not_in: operators.not_in ?? [] })(value)) {
          return explainNotIn(operators.not_in ?? [], value);
        }
        if (name === 'exists' && operators.exists !== (value !== undefined)) {
          return operators.exists
            ? 'is missing; exists: true requires it'
            : `is present (${preview(value)}); exists: false requires it to be missing`;
        }
      }
      return 'does not match';
    }
    case 'nested':
      return explainNested(classified.filter, value, path);
  }
}

function explainIn(allowed: readonly JsonValue[], value: unknown): string {
  if (value === undefined) return `is missing; expected one of ${preview(allowed)}`;
  if (Array.isArray(value)) return `${preview(value)} has no element that is one of ${preview(allowed)}`;
  return `${preview(value)} is not one of ${preview(allowed)}`;
}

function explainNotIn(excluded: readonly JsonValue[], value: unknown): string {
  const contains = compileValueList(excluded);
  if (Array.isArray(value) && !contains(value)) {
    const element = value.find((e) => contains(e));
    return `has the element ${preview(element)}, which not_in ${preview(excluded)} excludes`;
  }
  return `${preview(value)} is excluded by not_in ${preview(excluded)}`;
}

function explainNested(filter: PayloadFilter, value: unknown, path: string): string {
  if (value === undefined) return 'is missing; the nested filter needs an object here';
  if (!Array.isArray(value)) return isObjectValue(value) ? 'does not match' : `is ${describeKind(value)}, not an object`;
  // No element object matches: say why the first one does not, which is usually the useful one.
  const first = value.findIndex(isObjectValue);
  if (first < 0) return `is an array of ${value.length} element(s) and none is an object`;
  const failure = explainObject(filter, value[first] as Record<string, unknown>, indexPath(path, first));
  const detail = failure === null ? '' : `; ${failure.path}: ${failure.reason}`;
  return `no element of the array matches the nested filter${detail}`;
}

function describeKind(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'missing';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

const PREVIEW_LENGTH = 80;

/** A value as JSON, shortened for a message; never throws (payloads may hold anything). */
function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = describeKind(value);
  }
  return text.length > PREVIEW_LENGTH ? `${text.slice(0, PREVIEW_LENGTH - 1)}…` : text;
}
