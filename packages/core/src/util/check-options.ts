import * as v from 'valibot';

/**
 * Check the options of a constructor against a strict valibot object, throwing a TypeError that
 * names the first wrong option: an unknown key (with the right name of a mistyped one), a
 * missing required one, or a value of the wrong kind. Construction is the moment to fail: a typo
 * that passed would silently change behaviour later.
 */
export function checkOptions(
  fn: string,
  schema: v.StrictObjectSchema<v.ObjectEntries, undefined>,
  options: unknown,
  required: Record<string, string> = {},
): void {
  if (typeof options !== 'object' || options === null) throw new TypeError(`${fn}: options must be an object`);
  const result = v.safeParse(schema, options, { abortPipeEarly: true });
  if (result.success) return;
  const issue = result.issues[0] as v.BaseIssue<unknown>;
  const path = v.getDotPath(issue) ?? '';
  if (issue.type === 'strict_object' && issue.expected === 'never') {
    const name = path.split('.').pop()?.toLowerCase();
    const close = Object.keys(schema.entries).find((k) => k.toLowerCase() === name);
    throw new TypeError(`${fn}: unknown option ${path}${close ? ` (did you mean ${close}?)` : ''}`);
  }
  if (issue.type === 'strict_object' && issue.input === undefined) {
    throw new TypeError(`${fn}: option ${path} is required${required[path] ? `: ${required[path]}` : ''}`);
  }
  throw new TypeError(`${fn}: option ${path} ${issue.message}`);
}
