import { useState } from 'preact/hooks';
import { useClient } from '../api-context.js';
import { ErrorText, FieldErrors } from '../components/error-text.js';
import { formatTime } from '../format.js';
import { describe, type Problem, problemsAt } from '../problems.js';
import { Link, useRouter } from '../router.js';
import { useLoad } from '../use-load.js';

/** The team's factories; each owns webhooks and automations (docs/management-api.md, "Factories"). */
export function FactoriesPage() {
  const client = useClient();
  const { navigate } = useRouter();
  const factories = useLoad(() => client.factories.list(), []);
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<Problem | undefined>();
  return (
    <>
      <h1 tabIndex={-1}>Factories</h1>
      <ErrorText problem={factories.problem} />
      {factories.data && factories.data.factories.length === 0 ? (
        <p class="empty">No factories yet. Create one below: its webhooks and automations live in it.</p>
      ) : null}
      {factories.data && factories.data.factories.length > 0 ? (
        <ul class="cards">
          {factories.data.factories.map((factory) => (
            <li key={factory.uid}>
              <Link to={`/factories/${encodeURIComponent(factory.uid)}`}>{factory.name}</Link>{' '}
              <span class="hint">created {formatTime(factory.created_at)}</span>
            </li>
          ))}
        </ul>
      ) : null}
      <h2>Create a factory</h2>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          try {
            const factory = await client.factories.create({ name });
            navigate(`/factories/${encodeURIComponent(factory.uid)}`);
          } catch (error) {
            setProblem(describe(error));
          }
        }}
      >
        <label for="factory-name">Name</label>
        <input id="factory-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <FieldErrors problems={problemsAt(problem, 'name')} id="factory-name-errors" />
        <ErrorText problem={problem} />
        <button type="submit">Create factory</button>
      </form>
    </>
  );
}
