/**
 * AGENTRUN_SECRET_KEY as `secretKey`: one key, or a comma-separated list whose first key seals
 * and every key opens (docs/operations.md, "Rotating the secret key"). Base64 and hex keys hold
 * no comma; blanks around a key are ignored, an empty entry is refused.
 */
export function secretKeysFromEnv(value: string | undefined): string | string[] | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const keys = value.split(',').map((k) => k.trim());
  if (keys.some((k) => k === '')) throw new TypeError('AGENTRUN_SECRET_KEY has an empty entry between commas');
  return keys.length === 1 ? keys[0] : keys;
}
