/**
 * A deep copy of stored data: plain objects, arrays, primitives and byte arrays, which is all a
 * record holds. Several times faster than `structuredClone` on records this size, and the store
 * copies on every write and read. Anything else (a Date, a Map) goes to `structuredClone`.
 */
export function copy<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copy) as T;
  if (value instanceof Uint8Array) return new Uint8Array(value) as T;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  // A spread copies the shape in one step (and an own `__proto__` key as a key); only nested
  // values are then replaced. Adding the keys one by one instead would leave V8 with a slow
  // dictionary-mode object past a dozen keys, bigger and slower for as long as it is stored.
  const out: Record<string, unknown> = proto === null ? Object.assign(Object.create(null), value) : { ...value };
  for (const key of Object.keys(out)) {
    const inner = out[key];
    if (typeof inner === 'object' && inner !== null) out[key] = copy(inner);
  }
  return out as T;
}
