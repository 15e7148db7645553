import { API_KEY_SCOPE_DESCRIPTIONS, API_KEY_SCOPES, type ApiKeyScope } from '@agentrun/core/api';
import { useState } from 'preact/hooks';
import { useClient } from '../api-context.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { CopyButton } from '../components/copy-button.js';
import { ErrorText, FieldErrors } from '../components/error-text.js';
import { formatTime } from '../format.js';
import { describe, type Problem, problemsAt } from '../problems.js';
import { useLoad } from '../use-load.js';

/**
 * The team's API keys (docs/management-api.md, "API keys"; docs/dashboard.md, "API keys"): the
 * list (never a key), a form to create one (the key shown this once) and revoke. The scopes are
 * core's list, as the CLI's.
 */
export function KeysPage() {
  const client = useClient();
  const keys = useLoad(() => client.apiKeys.list(), []);
  const [problem, setProblem] = useState<Problem | undefined>();
  return (
    <>
      <h1 tabIndex={-1}>API keys</h1>
      <p class="hint">A key is shown once, when it is created; only its hash is kept. Revoking stops it at once.</p>
      <ErrorText problem={keys.problem ?? problem} />
      {keys.data && keys.data.api_keys.length === 0 ? <p class="empty">No API keys.</p> : null}
      {keys.data && keys.data.api_keys.length > 0 ? (
        <table class="list">
          <caption class="visually-hidden">API keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Scopes</th>
              <th scope="col">Created by</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">Revoke</th>
            </tr>
          </thead>
          <tbody>
            {keys.data.api_keys.map((key) => (
              <tr key={key.id} data-testid={`key-${key.id}`}>
                <td>{key.name || '—'}</td>
                <td>
                  <code>{key.prefix}…</code>
                </td>
                <td>{key.scopes === null ? 'from before scopes' : key.scopes.join(', ')}</td>
                <td>{key.created_by ? (key.created_by.display_name ?? key.created_by.uid) : '—'}</td>
                <td>{formatTime(key.created_at)}</td>
                <td>{key.last_used_at ? formatTime(key.last_used_at) : 'never'}</td>
                <td>{key.expires_at ? formatTime(key.expires_at) : 'never'}</td>
                <td>
                  <ConfirmButton
                    label="Revoke"
                    question={`Revoke ${key.name || key.prefix}? Requests with it fail at once.`}
                    confirmLabel="Yes, revoke"
                    onConfirm={async () => {
                      try {
                        await client.apiKeys.revoke(key.id);
                        setProblem(undefined);
                        keys.reload();
                      } catch (error) {
                        setProblem(describe(error));
                      }
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <h2>Create a key</h2>
      <CreateKeyForm onCreated={keys.reload} />
    </>
  );
}

function CreateKeyForm({ onCreated }: { onCreated: () => void }) {
  const client = useClient();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<ApiKeyScope[]>([]);
  const [expiresInDays, setExpiresInDays] = useState('');
  const [problem, setProblem] = useState<Problem | undefined>();
  const [shown, setShown] = useState<string | undefined>();
  return (
    <form
      onSubmit={async (event) => {
        event.preventDefault();
        if (!name.trim()) return setProblem({ message: 'Give the key a name.', fields: [] });
        if (scopes.length === 0) return setProblem({ message: 'Choose at least one scope.', fields: [] });
        const days = expiresInDays.trim() === '' ? undefined : Number(expiresInDays);
        if (days !== undefined && !(Number.isInteger(days) && days > 0)) {
          return setProblem({ message: 'Expires in: a whole number of days, or empty for never.', fields: [] });
        }
        try {
          const created = await client.apiKeys.create({
            name: name.trim(),
            scopes,
            ...(days !== undefined ? { expires_at: new Date(Date.now() + days * 86_400_000).toISOString() } : {}),
          });
          setShown(created.key);
          setName('');
          setScopes([]);
          setExpiresInDays('');
          setProblem(undefined);
          onCreated();
        } catch (error) {
          setProblem(describe(error));
        }
      }}
    >
      <label for="key-name">Name</label>
      <input id="key-name" value={name} onInput={(e) => setName(e.currentTarget.value)} autoComplete="off" />
      <FieldErrors problems={problemsAt(problem, 'name')} id="key-name-errors" />
      <fieldset>
        <legend>Scopes</legend>
        {API_KEY_SCOPES.map((scope) => (
          <label key={scope} class="check">
            <input
              type="checkbox"
              name="scope"
              value={scope}
              checked={scopes.includes(scope)}
              onChange={(e) => setScopes(e.currentTarget.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))}
            />{' '}
            <code>{scope}</code>: {API_KEY_SCOPE_DESCRIPTIONS[scope]}
          </label>
        ))}
      </fieldset>
      <label for="key-expires">Expires in (days; empty: never)</label>
      <input id="key-expires" inputMode="numeric" value={expiresInDays} onInput={(e) => setExpiresInDays(e.currentTarget.value)} />
      <ErrorText problem={problem} />
      <button type="submit">Create key</button>
      {shown ? (
        <dl class="facts secret-once">
          <dt>Key</dt>
          <dd>
            <code data-testid="new-key">{shown}</code> <CopyButton text={shown} label="Copy key" />
            <p class="warning">Shown this once: copy it now. It cannot be read again, only revoked.</p>
          </dd>
        </dl>
      ) : null}
    </form>
  );
}
