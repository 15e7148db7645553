/**
 * Text every store can keep. JSON may carry `\ud800` (an unpaired UTF-16 surrogate), which has no
 * UTF-8 form: Postgres refuses it in `jsonb` and `text`, while memory would keep it. agentrun
 * refuses it everywhere with a 400 instead (docs/run-api.md, "Text"), so every store answers alike.
 */

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const hasLoneSurrogate = (text: string): boolean => LONE_SURROGATE.test(text);

/** A string a store cannot keep, at its dot path in the body (`webhooks.0.name`, `''` for the body itself). */
export interface UnstorableText {
  path: string;
  detail: string;
}

const NUL_DETAIL = 'must not contain the NUL character (\\u0000)';
const SURROGATE_DETAIL = 'text must be valid Unicode (an unpaired surrogate escape such as \\ud800 is not)';

const unstorable = (text: string): string | undefined =>
  text.includes('\u0000') ? NUL_DETAIL : hasLoneSurrogate(text) ? SURROGATE_DETAIL : undefined;

/**
 * The first string (key or value) in a parsed JSON value that no store can keep (a NUL or an
 * unpaired surrogate), at the dot path valibot's errors use, so a refusal can list it in the
 * problem's `errors` like any other field (docs/definitions.md); or `undefined`. Iterative, so
 * depth costs no stack.
 */
export function findUnstorableText(value: unknown): UnstorableText | undefined {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [item, path] = stack.pop() as [unknown, string];
    if (typeof item === 'string') {
      const detail = unstorable(item);
      if (detail !== undefined) return { path, detail };
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push([item[i], path ? `${path}.${i}` : String(i)]);
    } else if (item !== null && typeof item === 'object') {
      for (const [key, child] of Object.entries(item).reverse()) {
        const at = path ? `${path}.${key}` : key;
        const detail = unstorable(key);
        if (detail !== undefined) return { path: at, detail: `its key ${detail.replace(/^text /, '')}` };
        stack.push([child, at]);
      }
    }
  }
  return undefined;
}
