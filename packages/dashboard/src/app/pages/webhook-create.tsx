import type { BodyOf, ResponseOf } from '@agentrun/client';
import { useState } from 'preact/hooks';
import { useClient } from '../api-context.js';
import { ErrorText, FieldErrors } from '../components/error-text.js';
import { describe, type Problem, problemsAt } from '../problems.js';
import { Link } from '../router.js';
import { useLoad } from '../use-load.js';
import { SecretOnce } from './secret-once.js';

/**
 * The create form of a webhook (docs/management-api.md, "Webhooks"): name, authentication,
 * provider scheme and signing secret, a new secret under the suggested name (the default) or an
 * existing team secret, and the delivery ID header. The answer shows the ingress URL and the
 * secret once; a provider that issues its secret after seeing the URL gets a second step.
 */

export const SCHEMES = ['standard-webhooks', 'stripe', 'github', 'slack', 'sentry', 'linear', 'shopify', 'gitlab'] as const;

type Created = ResponseOf<'createWebhook'>;

export function WebhookCreate({ factoryUid, onCreated }: { factoryUid: string; onCreated: () => void }) {
  const client = useClient();
  const secrets = useLoad(() => client.secrets.list(), []);
  const [name, setName] = useState('');
  const [authMode, setAuthMode] = useState<'token' | 'url_token' | 'signature'>('token');
  const [scheme, setScheme] = useState<(typeof SCHEMES)[number]>('github');
  const [providerSecret, setProviderSecret] = useState('');
  const [secretChoice, setSecretChoice] = useState<'suggested' | 'existing'>('suggested');
  const [existing, setExisting] = useState('');
  const [header, setHeader] = useState('');
  const [problem, setProblem] = useState<Problem | undefined>();
  const [created, setCreated] = useState<Created | undefined>();

  if (created) return <CreatedWebhook factoryUid={factoryUid} created={created} onDone={() => setCreated(undefined)} />;

  const slug =
    name
      .trim()
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'name';
  const existingSecrets = secrets.data?.secrets ?? [];
  return (
    <form
      class="panel"
      aria-labelledby="create-webhook-heading"
      onSubmit={async (event) => {
        event.preventDefault();
        const body: BodyOf<'createWebhook'> = { name: name.trim(), auth_mode: authMode };
        if (authMode === 'signature') body.signature_scheme = scheme;
        if (authMode === 'signature' && providerSecret) body.provider_secret = providerSecret;
        else if (secretChoice === 'existing' && existing) body.secret_name = existing;
        if (header.trim()) body.delivery_id_header = header.trim();
        try {
          setCreated(await client.webhooks.create(factoryUid, body));
          setProblem(undefined);
          onCreated();
        } catch (error) {
          setProblem(describe(error));
        }
      }}
    >
      <h3 id="create-webhook-heading">Create a webhook</h3>
      <label for="webhook-name">Name</label>
      <input id="webhook-name" value={name} onInput={(e) => setName(e.currentTarget.value)} aria-describedby="webhook-name-errors" />
      <FieldErrors problems={problemsAt(problem, 'name')} id="webhook-name-errors" />

      <fieldset>
        <legend>Authentication</legend>
        <label class="check">
          <input type="radio" name="auth_mode" checked={authMode === 'token'} onChange={() => setAuthMode('token')} /> Token in the
          Authorization header
        </label>
        <label class="check">
          <input type="radio" name="auth_mode" checked={authMode === 'url_token'} onChange={() => setAuthMode('url_token')} /> Token in the
          URL
        </label>
        <label class="check">
          <input type="radio" name="auth_mode" checked={authMode === 'signature'} onChange={() => setAuthMode('signature')} /> Signed by the
          provider
        </label>
      </fieldset>
      <FieldErrors problems={problemsAt(problem, 'auth_mode')} id="webhook-auth-errors" />

      {authMode === 'signature' ? (
        <>
          <label for="webhook-scheme">Provider scheme</label>
          <select id="webhook-scheme" value={scheme} onChange={(e) => setScheme(e.currentTarget.value as (typeof SCHEMES)[number])}>
            {SCHEMES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
          <FieldErrors problems={problemsAt(problem, 'signature_scheme')} id="webhook-scheme-errors" />
          <label for="webhook-provider-secret">Signing secret from the provider (optional)</label>
          <input
            id="webhook-provider-secret"
            type="password"
            autoComplete="off"
            value={providerSecret}
            onInput={(e) => setProviderSecret(e.currentTarget.value)}
            aria-describedby="webhook-provider-secret-hint"
          />
          <p class="hint" id="webhook-provider-secret-hint">
            {scheme === 'standard-webhooks'
              ? 'Leave empty to have one generated and shown once.'
              : 'Leave empty if the provider shows its secret only after it has the URL: you will paste it in a second step.'}
          </p>
          <FieldErrors problems={problemsAt(problem, 'provider_secret')} id="webhook-provider-secret-errors" />
        </>
      ) : null}

      {!(authMode === 'signature' && providerSecret) ? (
        <fieldset>
          <legend>Secret</legend>
          <label class="check">
            <input type="radio" name="secret_choice" checked={secretChoice === 'suggested'} onChange={() => setSecretChoice('suggested')} />{' '}
            A new team secret named <code>webhook-{slug}-…</code> (suggested)
          </label>
          <label class="check">
            <input
              type="radio"
              name="secret_choice"
              checked={secretChoice === 'existing'}
              disabled={existingSecrets.length === 0}
              onChange={() => setSecretChoice('existing')}
            />{' '}
            An existing team secret{existingSecrets.length === 0 ? ' (there is none yet)' : ''}
          </label>
          {secretChoice === 'existing' ? (
            <>
              <label for="webhook-existing-secret">Team secret</label>
              <select id="webhook-existing-secret" value={existing} onChange={(e) => setExisting(e.currentTarget.value)}>
                <option value="">Choose…</option>
                {existingSecrets.map((s) => (
                  <option key={s.name} value={s.name}>
                    {s.name}
                  </option>
                ))}
              </select>
            </>
          ) : null}
          <FieldErrors problems={problemsAt(problem, 'secret_name')} id="webhook-secret-errors" />
        </fieldset>
      ) : null}

      <label for="webhook-header">Delivery ID header (optional)</label>
      <input
        id="webhook-header"
        value={header}
        placeholder="X-GitHub-Delivery"
        onInput={(e) => setHeader(e.currentTarget.value)}
        aria-describedby="webhook-header-hint"
      />
      <p class="hint" id="webhook-header-hint">
        A header where the sender puts its own event ID, to spot duplicates. Never a header that carries a credential.
      </p>
      <FieldErrors problems={problemsAt(problem, 'delivery_id_header')} id="webhook-header-errors" />
      <ErrorText problem={problem} />
      <button type="submit">Create webhook</button>
    </form>
  );
}

/** The answer of a create: the URL and the secret, once; the provider-secret step when it is due. */
function CreatedWebhook({ factoryUid, created, onDone }: { factoryUid: string; created: Created; onDone: () => void }) {
  const webhook = created.webhook;
  const needsProviderSecret = webhook.auth_mode === 'signature' && webhook.signature_scheme !== 'standard-webhooks' && !created.secret;
  return (
    <section class="panel" aria-labelledby="created-heading">
      <h3 id="created-heading" tabIndex={-1} ref={(el) => el?.focus()}>
        Webhook {webhook.name} created
      </h3>
      <SecretOnce ingressUrl={created.ingress_url} secret={created.secret} />
      {needsProviderSecret ? (
        <ProviderSecretStep factoryUid={factoryUid} webhookUid={webhook.uid} scheme={webhook.signature_scheme} />
      ) : null}
      <p>
        <Link to={`/factories/${encodeURIComponent(factoryUid)}/webhooks/${encodeURIComponent(webhook.uid)}`}>Open the webhook</Link>{' '}
        <button type="button" onClick={onDone}>
          Create another
        </button>
      </p>
    </section>
  );
}

/** For providers that issue their signing secret once they have the URL (docs/management-api.md). */
export function ProviderSecretStep({ factoryUid, webhookUid, scheme }: { factoryUid: string; webhookUid: string; scheme?: string }) {
  const client = useClient();
  const [secret, setSecret] = useState('');
  const [problem, setProblem] = useState<Problem | undefined>();
  const [done, setDone] = useState(false);
  if (done) return <p role="status">Signing secret saved: the webhook now accepts signed deliveries.</p>;
  return (
    <form
      onSubmit={async (event) => {
        event.preventDefault();
        try {
          await client.webhooks.putProviderSecret(factoryUid, webhookUid, { secret });
          setDone(true);
        } catch (error) {
          setProblem(describe(error));
        }
      }}
    >
      <p>
        Step 2: give the URL above to {scheme ?? 'the provider'}, then paste the signing secret it shows you. Until then every delivery is
        rejected.
      </p>
      <label for={`provider-secret-${webhookUid}`}>Signing secret from {scheme ?? 'the provider'}</label>
      <input
        id={`provider-secret-${webhookUid}`}
        type="password"
        autoComplete="off"
        value={secret}
        onInput={(e) => setSecret(e.currentTarget.value)}
      />
      <ErrorText problem={problem} />
      <button type="submit">Save signing secret</button>
    </form>
  );
}
