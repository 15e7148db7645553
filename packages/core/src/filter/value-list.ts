import { jsonEqual } from './json-equal.js';
import type { JsonValue } from './types.js';

/** Whether a value equals (JSON deep equality) one of a list's values. */
export type ValueListTest = (value: unknown) => boolean;

type Primitive = string | number | boolean | null;

const never: ValueListTest = () => false;

/**
 * Compile an allowed (or excluded) list once. Primitives are compared with `===` (one or two of
 * them) or looked up in a `Set` (more): both compare numbers by value and keep `1`, `"1"`, `true`
 * and `null` apart, which is JSON equality for primitives. Object and array values are compared
 * structurally, and only with candidates that are objects or arrays themselves.
 */
export function compileValueList(values: readonly JsonValue[]): ValueListTest {
  const primitives: Primitive[] = [];
  const structured: JsonValue[] = [];
  for (const value of values) {
    if (typeof value === 'object' && value !== null) structured.push(value);
    else if (!primitives.includes(value)) primitives.push(value);
  }
  const primitive = primitiveTest(primitives);
  if (structured.length === 0) return primitive;
  return (value) => {
    if (typeof value !== 'object' || value === null) return primitive(value);
    for (let i = 0; i < structured.length; i++) if (jsonEqual(structured[i] as JsonValue, value)) return true;
    return false;
  };
}

function primitiveTest(primitives: readonly Primitive[]): ValueListTest {
  const [a, b] = primitives;
  switch (primitives.length) {
    case 0:
      return never;
    case 1:
      return (value) => value === a;
    case 2:
      return (value) => value === a || value === b;
    default: {
      const set = new Set<unknown>(primitives);
      return (value) => set.has(value);
    }
  }
}
