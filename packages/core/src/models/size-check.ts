import type * as v from 'valibot';
import type { FieldError } from '../errors.js';
import type { JsonBudget } from '../http/json-value-count.js';

/**
 * Sizes checked before validation, so a hostile body cannot stall the event loop (docs/run-api.md,
 * "Sizes first").
 *
 * valibot walks every element of an array, and every entry of a map, before its `maxLength` or
 * `maxEntries` runs, and builds an issue for each bad one: a run body whose `attachments` was a
 * million integers (2 MB) held the event loop for most of a second (measured: JSON.parse 19 ms,
 * valibot 735 ms). So each body is first walked beside its schema, looking only at sizes: an
 * array longer than its schema's `maxLength`, a map with more entries than its `maxEntries`, an
 * object with more keys than its schema has fields. The walk stops at the first one, and goes
 * only where the schema goes, into values already found within their limits, so it costs at
 * most what the schema's limits admit, whatever the body holds. The limits are the schema's own
 * actions, read here: each is stated once, in the schema.
 */

/**
 * What the walk needs of a schema: its container kind and size limit. Neither `leaf` (a string,
 * number, boolean, literal) nor `any` (`unknown`: a webhook payload, a filter) is looked into;
 * they differ in what they can hold, which `valueBudget` counts.
 */
type Shape =
  | { kind: 'array'; item: v.GenericSchema; max: number; message?: string }
  | { kind: 'record'; value: v.GenericSchema; max: number; message?: string }
  | { kind: 'object'; entries: Readonly<Record<string, v.GenericSchema>>; max: number }
  | { kind: 'leaf' }
  | { kind: 'any'; maxValues?: number };

/** The parts of a valibot schema or action the walk reads (valibot's own objects, as data). */
interface SchemaNode {
  kind?: string;
  type?: string;
  requirement?: unknown;
  message?: unknown;
  pipe?: readonly SchemaNode[];
  wrapped?: v.GenericSchema;
  item?: v.GenericSchema;
  value?: v.GenericSchema;
  entries?: Record<string, v.GenericSchema>;
  options?: readonly v.GenericSchema[];
}

const ANY: Shape = { kind: 'any' };
const LEAF: Shape = { kind: 'leaf' };
const shapes = new WeakMap<object, Shape>();

/** The first size over its schema's limit in `input`, with its dot path; `undefined` when none is. */
export function oversize(schema: v.GenericSchema, input: unknown): FieldError | undefined {
  return walk(input, shapeOf(schema), '');
}

function walk(value: unknown, shape: Shape, path: string): FieldError | undefined {
  if (shape.kind === 'array') {
    if (!Array.isArray(value)) return undefined;
    if (value.length > shape.max)
      return { path, detail: `${shape.message ?? `at most ${shape.max} items`} (the body has ${value.length})` };
    const item = shapeOf(shape.item);
    if (item.kind === 'any' || item.kind === 'leaf') return undefined;
    for (let i = 0; i < value.length; i++) {
      const found = walk(value[i], item, join(path, String(i)));
      if (found) return found;
    }
    return undefined;
  }
  if (shape.kind === 'any' || shape.kind === 'leaf' || !isPlainObject(value)) return undefined;
  if (shape.kind === 'record') {
    if (keysExceed(value, shape.max)) return { path, detail: shape.message ?? `at most ${shape.max} entries` };
    const inner = shapeOf(shape.value);
    if (inner.kind === 'any' || inner.kind === 'leaf') return undefined;
    for (const key of Object.keys(value)) {
      const found = walk(value[key], inner, join(path, key));
      if (found) return found;
    }
    return undefined;
  }
  // More keys than the schema has fields: one is unknown, named as valibot would name it.
  if (keysExceed(value, shape.max)) return { path: join(path, firstUnknown(value, shape.entries)), detail: 'unknown field' };
  for (const key of Object.keys(shape.entries)) {
    if (!Object.hasOwn(value, key)) continue;
    const found = walk(value[key], shapeOf(shape.entries[key] as v.GenericSchema), join(path, key));
    if (found) return found;
  }
  return undefined;
}

/**
 * What a body this schema accepts can hold, counted as the JSON text counts it before parsing
 * (http/json-value-count.ts): `values`, one per string, per `[` or `{`, and per comma (a number,
 * `true`, `false` or `null` adds only its comma); `items`, of the largest array or object.
 * Infinite where the schema takes any JSON (`unknown`, unless `maxValues` bounds it) or an array
 * or map without a limit. The body's text is refused past either, so JSON.parse never builds
 * more than the limits admit.
 */
export function jsonBudget(schema: v.GenericSchema): JsonBudget {
  let budget = budgets.get(schema);
  if (budget === undefined) {
    const shape = shapeOf(schema);
    budget = { values: countBound(shape), items: itemBound(shape) };
    budgets.set(schema, budget);
  }
  return budget;
}

const budgets = new WeakMap<object, JsonBudget>();
const valuesOf = (schema: v.GenericSchema) => jsonBudget(schema).values;
const itemsOf = (schema: v.GenericSchema) => jsonBudget(schema).items;

function countBound(shape: Shape): number {
  switch (shape.kind) {
    case 'leaf':
      return 1;
    case 'any':
      return shape.maxValues ?? Number.POSITIVE_INFINITY;
    case 'array':
      return 1 + shape.max * (1 + valuesOf(shape.item));
    case 'record':
      return 1 + shape.max * (2 + valuesOf(shape.value));
    case 'object': {
      if (shape.max === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
      let sum = 1;
      for (const entry of Object.values(shape.entries)) sum += 2 + valuesOf(entry);
      return sum;
    }
  }
}

function itemBound(shape: Shape): number {
  switch (shape.kind) {
    case 'leaf':
      return 0;
    case 'any':
      // A container of any JSON holds at most as many items as it holds values.
      return shape.maxValues ?? Number.POSITIVE_INFINITY;
    case 'array':
      return Math.max(shape.max, itemsOf(shape.item));
    case 'record':
      return Math.max(shape.max, itemsOf(shape.value));
    case 'object':
      return Math.max(shape.max, ...Object.values(shape.entries).map(itemsOf));
  }
}

const MAX_VALUES = 'max_values';

/**
 * A pipe item saying that a value of any JSON (`unknown`) holds at most `max` values where it
 * is accepted, because a later check (such as a filter's byte limit) refuses more: so its
 * route's body still has a value budget. It does nothing during validation (a metadata item).
 */
export const maxValues = <T>(max: number): v.MetadataAction<T, Record<string, never>> =>
  ({ kind: 'metadata', type: MAX_VALUES, reference: maxValues, requirement: max, metadata: {} }) as unknown as v.MetadataAction<
    T,
    Record<string, never>
  >;

/** The first key of `value` that is not a field; only asked when one must exist, so the loop ends within the field count + 1. */
function firstUnknown(value: Record<string, unknown>, entries: Readonly<Record<string, unknown>>): string {
  for (const key in value) if (Object.hasOwn(value, key) && !Object.hasOwn(entries, key)) return key;
  return '';
}

/** Whether `value` has more than `max` own keys; counting stops at `max + 1`. */
function keysExceed(value: Record<string, unknown>, max: number): boolean {
  let count = 0;
  for (const key in value) if (Object.hasOwn(value, key) && ++count > max) return true;
  return false;
}

function shapeOf(schema: v.GenericSchema): Shape {
  let shape = shapes.get(schema);
  if (!shape) {
    shape = readShape(schema as SchemaNode);
    shapes.set(schema, shape);
  }
  return shape;
}

/** The shape a schema validates, with the size limits its pipe states. */
function readShape(node: SchemaNode): Shape {
  if (node.pipe) {
    // A pipe's first item is the schema it was made from; later schemas narrow it (jsonObject: custom, then object).
    let shape: Shape = ANY;
    for (const step of node.pipe) {
      if (step.kind === 'schema') {
        const next = shapeOf(step as v.GenericSchema);
        if (next.kind !== 'any') shape = next;
      } else if (step.kind === 'metadata' && step.type === MAX_VALUES && shape.kind === 'any' && typeof step.requirement === 'number') {
        shape = { kind: 'any', maxValues: step.requirement };
      } else if (
        typeof step.requirement === 'number' &&
        step.requirement < (shape.kind === 'array' || shape.kind === 'record' ? shape.max : 0)
      ) {
        // The schema's own words for its limit, when it has them.
        const limit = { max: step.requirement, ...(typeof step.message === 'string' ? { message: step.message } : {}) };
        if (step.type === 'max_length' && shape.kind === 'array') shape = { ...shape, ...limit };
        if (step.type === 'max_entries' && shape.kind === 'record') shape = { ...shape, ...limit };
      }
    }
    return shape;
  }
  switch (node.type) {
    case 'array':
      return { kind: 'array', item: node.item as v.GenericSchema, max: Number.POSITIVE_INFINITY };
    case 'record':
      return { kind: 'record', value: node.value as v.GenericSchema, max: Number.POSITIVE_INFINITY };
    case 'strict_object':
      return { kind: 'object', entries: node.entries ?? {}, max: Object.keys(node.entries ?? {}).length };
    case 'object':
    case 'loose_object':
      // These let other keys through (dropped or kept), so their count is no limit.
      return { kind: 'object', entries: node.entries ?? {}, max: Number.POSITIVE_INFINITY };
    case 'optional':
    case 'nullable':
    case 'nullish':
      return shapeOf(node.wrapped as v.GenericSchema);
    case 'union':
      return unionShape((node.options ?? []).map(shapeOf));
    case 'unknown':
    case 'any':
    case 'custom':
    case 'lazy':
      return ANY;
    default:
      return LEAF;
  }
}

/** A union of objects is walked as one object with every option's fields, and as many keys as its largest option has. */
function unionShape(options: readonly Shape[]): Shape {
  if (options.length > 0 && options.every((o) => o.kind === 'leaf')) return LEAF;
  if (options.length === 0 || !options.every((o) => o.kind === 'object')) return ANY;
  const entries: Record<string, v.GenericSchema> = {};
  for (const option of options) for (const [key, schema] of Object.entries(option.entries)) entries[key] ??= schema;
  return { kind: 'object', entries, max: Math.max(...options.map((o) => o.max)) };
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
