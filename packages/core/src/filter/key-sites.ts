import type { ObjectTest, ValueTest } from './conditions.js';

/**
 * Reading a filter key's value from a payload object, fast and own-properties-only.
 *
 * Why this file repeats itself: V8 keeps the inline cache of a property read per place in the
 * source, shared by every closure created there. One `(object) => object[key]` serving every key
 * of every filter sees many names and falls back to a generic lookup (about 10 ns on a large
 * GitHub object, several times per key with the own-property check); a read that only ever sees
 * one name becomes a direct field load. So there are SITES copies of the same reader, and a key is
 * read at the copy assigned to its name: one name always lands on the same copy, across all
 * filters, and the first SITES names each have their own. (Generating code with `new Function` would
 * also do it, but not where `eval` is forbidden, as in Cloudflare Workers or under a strict CSP.)
 *
 * Own properties only: a value that is `undefined` is missing anyway; any other value is own when
 * the object is a plain object (prototype `Object.prototype`, the JSON case) and
 * `Object.prototype` has no such key. Both tests are constant for the object shapes a site has
 * seen, so V8 folds them away; everything else (null-prototype and class objects, keys such as
 * `constructor` or `__proto__`, a polluted `Object.prototype`) takes `ownValue`.
 */

/** Makes the test of one key: read the value (own only, `undefined` when missing) and test it. */
export type KeySite = (key: string, test: ValueTest) => ObjectTest;

const OBJECT_PROTOTYPE = Object.prototype as Record<string, unknown>;

/** The slow, always-right read: own property or `undefined`. */
const ownValue = (object: Record<string, unknown>, key: string): unknown => (Object.hasOwn(object, key) ? object[key] : undefined);

// Sites are identical on purpose (see above): do not fold them into one function.
const site0: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site1: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site2: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site3: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site4: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site5: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site6: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site7: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site8: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site9: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site10: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site11: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site12: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site13: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site14: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site15: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site16: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site17: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site18: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site19: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site20: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site21: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site22: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site23: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site24: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site25: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site26: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site27: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site28: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site29: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site30: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};
const site31: KeySite = (key, test) => (object) => {
  const value = object[key];
  return test(
    value === undefined || (OBJECT_PROTOTYPE[key] === undefined && Object.getPrototypeOf(object) === OBJECT_PROTOTYPE)
      ? value
      : ownValue(object, key),
  );
};

const SITES: readonly KeySite[] = [
  site0,
  site1,
  site2,
  site3,
  site4,
  site5,
  site6,
  site7,
  site8,
  site9,
  site10,
  site11,
  site12,
  site13,
  site14,
  site15,
  site16,
  site17,
  site18,
  site19,
  site20,
  site21,
  site22,
  site23,
  site24,
  site25,
  site26,
  site27,
  site28,
  site29,
  site30,
  site31,
];

/**
 * Names get sites first come, first served, so the first SITES distinct names never share one;
 * later names are hashed onto them (sharing only costs speed). The map stops growing at SITES.
 */
const assigned = new Map<string, number>();

function siteIndex(key: string): number {
  const known = assigned.get(key);
  if (known !== undefined) return known;
  if (assigned.size < SITES.length) {
    assigned.set(key, assigned.size);
    return assigned.size - 1;
  }
  // FNV-1a: cheap, and spreads short similar names (`ref`, `refs`, `repo`) apart.
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % SITES.length;
}

/** The test of one key: its own value in the object (`undefined` when missing), judged by `test`. */
export const keyTest = (key: string, test: ValueTest): ObjectTest => (SITES[siteIndex(key)] as KeySite)(key, test);
