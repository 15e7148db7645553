import * as v from 'valibot';

/** valibot issues as one line naming each failing path, as the API words its 400s (core's models/validate.ts). */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .slice(0, 3)
    .map((issue) => {
      const path = v.getDotPath(issue);
      if (issue.kind === 'schema' && issue.type === 'strict_object' && issue.expected === 'never') return `${path}: unknown field`;
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}
