// Non-fatal: invalid UTF-8 becomes U+FFFD. Only used to read a field after the bytes are verified.
const decoder = new TextDecoder();

/**
 * A top-level field of a JSON object body, or `undefined` when the body is not a JSON object or
 * lacks the field. Never throws: the body is attacker-shaped until proven otherwise, and an
 * invalid JSON body is for the pipeline to answer (400), not the verifier.
 */
export const topLevelField = (body: Uint8Array, key: string): unknown => {
  try {
    const value: unknown = JSON.parse(decoder.decode(body));
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, key)) return undefined;
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
};
