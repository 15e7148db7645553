/**
 * Filter limits (docs/filters.md, "Limits"), checked by `parseFilter` when an automation is saved.
 * They bound the work one delivery costs per automation, and keep every walk of a filter shallow.
 */
export const FILTER_LIMITS = {
  /** Field levels, plus the nesting of object and array allowed values. */
  maxDepth: 8,
  /** Field keys at all levels together (operator keys are not fields). */
  maxKeys: 64,
  /** Values in one `in` or `not_in` list (or bare array). */
  maxValues: 256,
  /** UTF-8 bytes of `JSON.stringify(filter)`. */
  maxBytes: 16_384,
} as const;
