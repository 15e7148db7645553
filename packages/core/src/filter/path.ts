const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * The path of `key` under `path`, as in JavaScript: `a.b`, or `a["x-github-event"]` for a key
 * that is not an identifier (so a key holding a dot cannot be mistaken for two levels).
 * `''` is the root.
 */
export const childPath = (path: string, key: string): string => {
  if (!IDENTIFIER.test(key)) return `${path}[${JSON.stringify(key)}]`;
  return path === '' ? key : `${path}.${key}`;
};

export const indexPath = (path: string, index: number): string => `${path}[${index}]`;
