import { AuthenticationError, PermissionDeniedError } from '@agentrun/client';
import { useState } from 'preact/hooks';
import { ErrorText } from '../components/error-text.js';
import type { AppConfig } from '../config.js';
import { describe } from '../problems.js';
import { clientFor } from '../session.js';

/**
 * Sign-in with an API key (docs/dashboard.md, "Signing in"): checked with one call before it is
 * kept, then stored in sessionStorage for this tab only.
 */
export function SignIn({ config, onSignedIn }: { config: AppConfig; onSignedIn: (apiKey: string) => void }) {
  const [key, setKey] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  return (
    <main id="main" class="sign-in">
      <h1>Sign in to agentrun</h1>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          const apiKey = key.trim();
          if (!apiKey) return setProblem('Enter an API key.');
          setBusy(true);
          try {
            await clientFor(config, apiKey).runs.listPage({ limit: 1 });
            onSignedIn(apiKey);
          } catch (error) {
            // A 403 accepted the key: it lacks read_runs (docs/operations.md, "API keys"), and
            // each page says what its scope allows; only a 401 refuses it.
            if (error instanceof PermissionDeniedError) return onSignedIn(apiKey);
            setProblem(
              error instanceof AuthenticationError ? 'This API key was not accepted. Check it and try again.' : describe(error).message,
            );
          } finally {
            setBusy(false);
          }
        }}
      >
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          value={key}
          aria-describedby={problem ? 'sign-in-error' : 'api-key-hint'}
          aria-invalid={problem ? true : undefined}
          onInput={(e) => setKey(e.currentTarget.value)}
        />
        <p id="api-key-hint" class="hint">
          Kept in this browser tab only, until it closes. The reference server prints one at start.
        </p>
        <ErrorText problem={problem} id="sign-in-error" />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
