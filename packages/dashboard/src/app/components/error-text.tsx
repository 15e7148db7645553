import type { FieldProblem, Problem } from '../problems.js';

/** An error in words, announced to screen readers where it appears. */
export function ErrorText({ problem, id }: { problem: Problem | string | undefined; id?: string }) {
  if (problem === undefined) return null;
  const message = typeof problem === 'string' ? problem : problem.message;
  return (
    <p class="error" role="alert" id={id}>
      {message}
    </p>
  );
}

/** The problems of one field, each with the path it names (below the field). */
export function FieldErrors({ problems, id }: { problems: FieldProblem[]; id: string }) {
  if (problems.length === 0) return null;
  return (
    <div role="alert" id={id}>
      <ul class="field-errors">
        {problems.map((p) => (
          <li key={p.path + p.detail}>
            {p.path ? <code>{p.path}</code> : null}
            {p.path ? ': ' : ''}
            {p.detail}
          </li>
        ))}
      </ul>
    </div>
  );
}
