import { useState } from 'preact/hooks';
import { useClient } from '../api-context.js';
import { ErrorText, FieldErrors } from '../components/error-text.js';
import { formatTime } from '../format.js';
import { describe, type Problem, problemsAt } from '../problems.js';
import { useLoad } from '../use-load.js';

/**
 * The team's secrets (docs/management-api.md, "Team secrets"): names and dates only. A value is
 * written, never shown back: not after creating, not after updating.
 */
export function SecretsPage() {
  const client = useClient();
  const secrets = useLoad(() => client.secrets.list(), []);
  return (
    <>
      <h1 tabIndex={-1}>Team secrets</h1>
      <p class="hint">Values are sealed at rest and never shown again after you save them.</p>
      <ErrorText problem={secrets.problem} />
      {secrets.data && secrets.data.secrets.length === 0 ? (
        <p class="empty">No team secrets yet. Create one below, or let a new webhook make its own.</p>
      ) : null}
      {secrets.data && secrets.data.secrets.length > 0 ? (
        <table class="list">
          <caption class="visually-hidden">Team secrets</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Created</th>
              <th scope="col">Updated</th>
              <th scope="col">New value</th>
            </tr>
          </thead>
          <tbody>
            {secrets.data.secrets.map((secret) => (
              <tr key={secret.name}>
                <td>
                  <code>{secret.name}</code>
                </td>
                <td>{formatTime(secret.created_at)}</td>
                <td>{formatTime(secret.updated_at)}</td>
                <td>
                  <SecretForm fixedName={secret.name} onSaved={secrets.reload} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <h2>Create a secret</h2>
      <SecretForm onSaved={secrets.reload} taken={secrets.data?.secrets.map((secret) => secret.name) ?? []} />
    </>
  );
}

/** Create (a name and a value; not one of the `taken` names) or update (the value of `fixedName`). */
function SecretForm({ fixedName, onSaved, taken = [] }: { fixedName?: string; onSaved: () => void; taken?: string[] }) {
  const client = useClient();
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [problem, setProblem] = useState<Problem | undefined>();
  const [saved, setSaved] = useState('');
  const id = fixedName ? `secret-${fixedName}` : 'secret-new';
  return (
    <form
      class={fixedName ? 'inline' : undefined}
      onSubmit={async (event) => {
        event.preventDefault();
        const target = fixedName ?? name.trim();
        if (!target) return setProblem({ message: 'Give the secret a name.', fields: [] });
        // Creating never replaces a value by accident: an existing secret is updated in its row.
        if (!fixedName && taken.includes(target)) {
          return setProblem({ message: `${target} already exists: give it a new value in its row above.`, fields: [] });
        }
        if (!value) return setProblem({ message: 'Enter a value.', fields: [] });
        try {
          await client.secrets.put(target, { value });
          setValue('');
          if (!fixedName) setName('');
          setProblem(undefined);
          setSaved(fixedName ? `Updated ${target}.` : `Created ${target}.`);
          onSaved();
        } catch (error) {
          setProblem(describe(error));
        }
      }}
    >
      {fixedName ? null : (
        <>
          <label for={`${id}-name`}>Name</label>
          <input id={`${id}-name`} value={name} onInput={(e) => setName(e.currentTarget.value)} autoComplete="off" />
          <FieldErrors problems={problemsAt(problem, 'name')} id={`${id}-name-errors`} />
        </>
      )}
      <label for={`${id}-value`}>{fixedName ? `New value for ${fixedName}` : 'Value'}</label>
      <input
        id={`${id}-value`}
        type="password"
        autoComplete="new-password"
        value={value}
        onInput={(e) => setValue(e.currentTarget.value)}
      />
      <ErrorText problem={problem} />
      <span role="status">{saved}</span>
      <button type="submit">{fixedName ? 'Update' : 'Create secret'}</button>
    </form>
  );
}
