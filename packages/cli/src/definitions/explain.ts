import { fileKey } from './keys.js';
import { type LoadedDefinitions, lineOf } from './load.js';

/** One problem the server found, at its path in the apply body (problem+json `errors`). */
export interface FieldProblem {
  path: string;
  detail: string;
}

/**
 * Each problem where the user fixes it: `webhooks/ci.yaml:3: secretName: no team secret named …`.
 * A path into `webhooks.<i>` or `automations.<i>` is that file's; the line is the key's own, or
 * the nearest line above it the file has (a missing key: the file's first line).
 */
export function explainProblems(problems: readonly FieldProblem[], loaded: LoadedDefinitions, dir: string): string[] {
  return problems.map(({ path, detail }) => {
    const [kind, index, ...rest] = path.split('.');
    const file =
      kind === 'webhooks' || kind === 'automations' || kind === 'environments' || kind === 'schedules'
        ? loaded.files[kind][Number(index)]
        : undefined;
    if (!file) return `${dir}: ${path ? `${path}: ` : ''}${detail}`;
    const keys = rest.map((segment, i) => (i === 0 ? fileKey(segment) : /^\d+$/.test(segment) ? Number(segment) : segment));
    const shown = keys.length > 0 ? `${keys.join('.')}: ` : '';
    return `${file.path}:${lineOf(file, keys)}: ${shown}${detail}`;
  });
}
