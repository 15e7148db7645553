import { DEFINITION_KINDS, type DefinitionKind, type DefinitionProblem, type LoadedDefinitions, lineOf } from './directory.js';
import { fileKey } from './file-keys.js';

/** One problem the server found, at its path in the apply body (problem+json `errors`). */
export interface FieldProblem {
  path: string;
  detail: string;
}

/**
 * Each problem where the user fixes it: `webhooks/ci.yaml`, line 3, `secretName: no team secret
 * named …`. A path into `webhooks.<i>`, `automations.<i>` or `environments.<i>` is that file's; the
 * line is the key's own, or the nearest line above it the file has (a missing key: the file's
 * first line). Any other path is the directory's (`dir`), line 0.
 */
export function locateProblems(problems: readonly FieldProblem[], loaded: LoadedDefinitions, dir: string): DefinitionProblem[] {
  return problems.map(({ path, detail }) => {
    const [kind, index, ...rest] = path.split('.');
    const file = (DEFINITION_KINDS as readonly string[]).includes(kind ?? '')
      ? loaded.files[kind as DefinitionKind][Number(index)]
      : undefined;
    if (!file) return { path: dir, line: 0, message: `${path ? `${path}: ` : ''}${detail}` };
    const keys = rest.map((segment, i) => (i === 0 ? fileKey(segment) : /^\d+$/.test(segment) ? Number(segment) : segment));
    const shown = keys.length > 0 ? `${keys.join('.')}: ` : '';
    return { path: file.path, line: lineOf(file, keys), message: `${shown}${detail}` };
  });
}
