import * as v from 'valibot';
import { invalidRequest } from '../errors.js';

/** Parse `input` with `schema`, or throw a 400 whose detail names the first failing path. */
export function parseOrThrow<S extends v.GenericSchema>(schema: S, input: unknown, what: string): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  throw invalidRequest(describeIssues(result.issues, what));
}

function describeIssues(issues: readonly v.BaseIssue<unknown>[], what: string): string {
  const parts = issues.slice(0, 3).map((issue) => {
    const path = v.getDotPath(issue);
    // Unknown keys in strict objects are reported on the key itself; say so plainly. The same issue
    // type also reports a missing required key and a value that is not an object at all.
    if (issue.kind === 'schema' && issue.type === 'strict_object') {
      if (issue.expected === 'never') return `${path ?? String(issue.input)}: unknown field`;
      if (issue.input === undefined && path) return `${path}: required`;
    }
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  return `invalid ${what}: ${parts.join('; ')}`;
}
