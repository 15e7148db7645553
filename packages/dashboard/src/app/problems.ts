import { APIConnectionError, APIError } from '@agentrun/client';

/**
 * API errors in words (docs/dashboard.md): the problem+json `detail`, and for a 400
 * with several problems, each at its dot path (`triggers.0.filter.payload.action`) so a form can
 * show it beside the field it is about.
 */

export interface FieldProblem {
  path: string;
  detail: string;
}

export interface Problem {
  /** One sentence for the whole error. */
  message: string;
  fields: FieldProblem[];
}

// `path: what is wrong`, after an optional lead-in such as `invalid webhook: `.
const PATH_DETAIL = /(?:^|: )([A-Za-z_][\w-]*(?:\.[\w-]+|\[\d+\]|\["[^"]*"\])*): (.+)$/s;

export function describe(error: unknown): Problem {
  if (error instanceof APIError) {
    const body = (typeof error.body === 'object' && error.body !== null ? error.body : {}) as { errors?: unknown };
    const fields = Array.isArray(body.errors)
      ? body.errors.flatMap((e: unknown) => {
          const { path, detail } = (e ?? {}) as { path?: unknown; detail?: unknown };
          return typeof detail === 'string' ? [{ path: typeof path === 'string' ? path : '', detail }] : [];
        })
      : [];
    const words = error.detail ?? error.title ?? error.error ?? (typeof error.body === 'string' ? error.body : undefined);
    // A single problem is named in its detail, `path: what is wrong` (docs/filters.md, "Errors").
    const named = fields.length === 0 && error.status === 400 ? PATH_DETAIL.exec(error.detail ?? '') : null;
    if (named) fields.push({ path: named[1]!, detail: named[2]! });
    return { message: `${words ?? 'The request failed'} (HTTP ${error.status})`, fields };
  }
  if (error instanceof APIConnectionError) return { message: 'Could not reach the API. Check the connection and try again.', fields: [] };
  return { message: error instanceof Error ? error.message : String(error), fields: [] };
}

/** The problems at `prefix` or below it (a field's own, and its parts'). */
export const problemsAt = (problem: Problem | undefined, prefix: string): FieldProblem[] =>
  problem?.fields.filter((f) => f.path === prefix || f.path.startsWith(`${prefix}.`)) ?? [];
