import * as v from 'valibot';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** valibot's `object` accepts arrays; request bodies and their members must be JSON objects. */
export const jsonObject = <const E extends v.ObjectEntries>(entries: E) =>
  v.pipe(v.custom<Record<string, unknown>>(isPlainObject, 'must be a JSON object'), v.strictObject(entries));

/** Names that valibot's `record` skips without a word; refused so that nothing is dropped silently. */
const RESERVED_KEYS = new Set(['__proto__', 'prototype', 'constructor']);

/** A JSON object used as a map. Keys such as `__proto__` are refused rather than dropped. */
export const jsonMap = <K extends v.GenericSchema<string, string>, V extends v.GenericSchema>(key: K, value: V) =>
  v.pipe(
    v.custom<Record<string, unknown>>(isPlainObject, 'must be a JSON object'),
    v.check((m) => !Object.keys(m).some((k) => RESERVED_KEYS.has(k)), 'keys __proto__, prototype and constructor are not allowed'),
    v.record(key, value),
  );
