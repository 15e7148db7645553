import * as v from 'valibot';
import { AgentRunError, type FieldError, invalidRequest } from '../errors.js';
import { oversize } from './size-check.js';

/**
 * Parse `input` with `schema`, or throw a 400 whose detail names the first failing path. Sizes
 * over the schema's limits are refused first (size-check.ts), and valibot stops at the first
 * issue: the detail names one, so building the others would be wasted.
 */
export function parseOrThrow<S extends v.GenericSchema>(schema: S, input: unknown, what: string): v.InferOutput<S> {
  refuseOversize(schema, input, what);
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (result.success) return result.output;
  throw invalidRequest(describeErrors(fieldErrors(result.issues.slice(0, 3)), what));
}

/**
 * Parse `input` with `schema`, or throw a 400 carrying every problem at its path (the problem
 * document's `errors`), for inputs a person edits as many files at once (docs/definitions.md).
 */
export function parseAllOrThrow<S extends v.GenericSchema>(schema: S, input: unknown, what: string): v.InferOutput<S> {
  // The full list is promised here; the size check first bounds how long it can be.
  refuseOversize(schema, input, what);
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  throw invalidWithErrors(fieldErrors(result.issues), what);
}

/** A 400 naming the first size over its limit, before any validation walks the body. */
function refuseOversize(schema: v.GenericSchema, input: unknown, what: string): void {
  const found = oversize(schema, input);
  if (found) throw invalidWithErrors([found], what);
}

/** A 400 listing `errors`: the detail names the first three, `errors` has them all. */
export const invalidWithErrors = (errors: readonly FieldError[], what: string): AgentRunError =>
  new AgentRunError('invalid_request', describeErrors(errors.slice(0, 3), what), { errors });

function describeErrors(errors: readonly FieldError[], what: string): string {
  return `invalid ${what}: ${errors.map((e) => (e.path ? `${e.path}: ${e.detail}` : e.detail)).join('; ')}`;
}

function fieldErrors(issues: readonly v.BaseIssue<unknown>[]): FieldError[] {
  return issues.map((issue) => {
    const path = v.getDotPath(issue) ?? '';
    // Unknown keys in strict objects are reported on the key itself; say so plainly. The same issue
    // type also reports a missing required key and a value that is not an object at all.
    if (issue.kind === 'schema' && issue.type === 'strict_object') {
      if (issue.expected === 'never')
        return path ? { path, detail: 'unknown field' } : { path: String(issue.input), detail: 'unknown field' };
      if (issue.input === undefined && path) return { path, detail: 'required' };
    }
    return { path, detail: issue.message };
  });
}
