/**
 * Text every store can keep. JSON may carry `\ud800` (an unpaired UTF-16 surrogate), which has no
 * UTF-8 form: Postgres refuses it in `jsonb` and `text`, while memory would keep it. agentrun
 * refuses it everywhere with a 400 instead (docs/run-api.md, "Text"), so every store answers alike.
 */

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const hasLoneSurrogate = (text: string): boolean => LONE_SURROGATE.test(text);

/**
 * The path of the first string (key or value) in a parsed JSON value that holds an unpaired
 * surrogate, or `undefined`. Iterative, so depth costs no stack.
 */
export function findLoneSurrogate(value: unknown): string | undefined {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [item, path] = stack.pop() as [unknown, string];
    if (typeof item === 'string') {
      if (hasLoneSurrogate(item)) return path || '(the body)';
    } else if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i++) stack.push([item[i], `${path}[${i}]`]);
    } else if (item !== null && typeof item === 'object') {
      for (const [key, child] of Object.entries(item)) {
        const at = path ? `${path}.${key}` : key;
        if (hasLoneSurrogate(key)) return at;
        stack.push([child, at]);
      }
    }
  }
  return undefined;
}
