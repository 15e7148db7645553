/**
 * Text every store can keep. JSON may carry `\ud800` (an unpaired UTF-16 surrogate), which has no
 * UTF-8 form, or `\u0000`: Postgres refuses both in `jsonb` and `text`, while memory would keep
 * them. agentrun refuses them in requests with a 400 (docs/run-api.md, "Text"), and replaces them
 * in what an agent writes (`wellFormedText`), so every store answers alike.
 */

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE_SOURCE = '[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]';
const LONE_SURROGATE = new RegExp(LONE_SURROGATE_SOURCE);
/** Each code unit no store can keep: NUL, and each unpaired surrogate. */
const UNSTORABLE = new RegExp(`\\u0000|${LONE_SURROGATE_SOURCE}`, 'g');
/** Cheap first look: most text has none of these code units. */
const SUSPECT = /[\u0000\ud800-\udfff]/;

export const hasLoneSurrogate = (text: string): boolean => LONE_SURROGATE.test(text);

/**
 * `text` with each NUL and unpaired surrogate replaced by U+FFFD, a valid pair kept; valid text
 * comes back as it is. For text agentrun must keep rather than refuse, an agent's output
 * (worker/agent-text.ts, util/well-formed-text.ts; docs/executors.md, "Text a store cannot keep").
 */
export function wellFormedText(text: string): string {
  return SUSPECT.test(text) ? text.replace(UNSTORABLE, '\ufffd') : text;
}

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
