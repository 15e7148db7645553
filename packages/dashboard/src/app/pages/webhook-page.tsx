import type { ResponseOf } from '@agentrun/client';
import { useState } from 'preact/hooks';
import { useClient } from '../api-context.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { ErrorText } from '../components/error-text.js';
import { FactoryCrumbs } from '../components/factory-crumbs.js';
import { formatTime } from '../format.js';
import { describe, type Problem } from '../problems.js';
import { useRouter } from '../router.js';
import { useLoad } from '../use-load.js';
import { Deliveries } from './deliveries.js';
import { SecretOnce } from './secret-once.js';
import { ProviderSecretStep } from './webhook-create.js';

type Rotated = ResponseOf<'rotateWebhookSecret'>;

/**
 * One webhook (docs/management-api.md, "Webhooks"): its settings, Enabled, Rotate (the new secret
 * shown once; the old one stops at once), Delete, and its recent deliveries.
 */
export function WebhookPage({ factoryUid, webhookUid }: { factoryUid: string; webhookUid: string }) {
  const client = useClient();
  const { navigate } = useRouter();
  const webhook = useLoad(() => client.webhooks.get(factoryUid, webhookUid), [factoryUid, webhookUid]);
  const [problem, setProblem] = useState<Problem | undefined>();
  const [rotated, setRotated] = useState<Rotated | undefined>();
  const [newProviderSecret, setNewProviderSecret] = useState('');
  const [enabledShown, setEnabledShown] = useState<boolean | undefined>();
  const factoryPath = `/factories/${encodeURIComponent(factoryUid)}`;
  const w = webhook.data;
  const providerIssued = w?.auth_mode === 'signature' && w.signature_scheme !== 'standard-webhooks';

  const act = async (action: () => Promise<unknown>) => {
    try {
      await action();
      setProblem(undefined);
    } catch (error) {
      setProblem(describe(error));
    }
  };

  return (
    <>
      <FactoryCrumbs factoryUid={factoryUid} />
      <h1 tabIndex={-1}>{w ? `Webhook ${w.name}` : 'Webhook'}</h1>
      <ErrorText problem={webhook.problem} />
      {w ? (
        <>
          <dl class="facts">
            <dt>Ingress URL</dt>
            <dd>
              <code data-testid="webhook-ingress-url">{w.ingress_url}</code>
            </dd>
            <dt>Authentication</dt>
            <dd>{w.auth_mode === 'signature' ? `signature (${w.signature_scheme})` : w.auth_mode}</dd>
            <dt>Secret name</dt>
            <dd>
              <code>{w.secret_name}</code>
            </dd>
            <dt>Delivery ID header</dt>
            <dd>{w.delivery_id_header ?? '—'}</dd>
            <dt>Created</dt>
            <dd>{formatTime(w.created_at)}</dd>
            {w.definition_file ? (
              <>
                <dt>Defined by</dt>
                <dd>
                  <code>{w.definition_file}</code>
                </dd>
              </>
            ) : null}
          </dl>
          {w.definition_file ? (
            <p class="hint">
              This webhook is defined by a file: change <code>{w.definition_file}</code> and run <code>agentrun apply</code>. To give it a
              new secret, update the team secret <code>{w.secret_name}</code> (<code>agentrun secret update {w.secret_name} --team</code>),
              then turn Enabled off and on.
            </p>
          ) : null}
          <div class="actions">
            <label class="check">
              <input
                type="checkbox"
                checked={enabledShown ?? w.enabled}
                onChange={(e) => {
                  // Shown at once; put back when the API refuses.
                  const enabled = e.currentTarget.checked;
                  setEnabledShown(enabled);
                  void act(async () => {
                    try {
                      await client.webhooks.update(factoryUid, webhookUid, { enabled });
                    } catch (error) {
                      setEnabledShown(!enabled);
                      throw error;
                    }
                  });
                }}
              />{' '}
              Enabled
            </label>
            {w.definition_file ? null : (
              <>
                <ConfirmButton
                  label="Rotate secret"
                  question={
                    providerIssued
                      ? 'Rotate? Paste the new signing secret from the provider; the old one stops at once.'
                      : 'Rotate the secret? The old one stops working at once.'
                  }
                  confirmLabel="Yes, rotate"
                  onConfirm={() =>
                    act(async () => {
                      const body = providerIssued ? { secret: newProviderSecret } : undefined;
                      setRotated(await client.webhooks.rotateSecret(factoryUid, webhookUid, body));
                      setNewProviderSecret('');
                    })
                  }
                >
                  {providerIssued ? (
                    <label>
                      New signing secret{' '}
                      <input
                        type="password"
                        autoComplete="off"
                        value={newProviderSecret}
                        onInput={(e) => setNewProviderSecret(e.currentTarget.value)}
                      />
                    </label>
                  ) : null}
                </ConfirmButton>
                <ConfirmButton
                  label="Delete webhook"
                  question="Delete this webhook? Senders are refused at once."
                  confirmLabel="Yes, delete"
                  onConfirm={() =>
                    act(async () => {
                      await client.webhooks.delete(factoryUid, webhookUid);
                      navigate(factoryPath);
                    })
                  }
                />
              </>
            )}
          </div>
          <ErrorText problem={problem} />
          {providerIssued && !w.definition_file ? (
            <details class="panel">
              <summary>Set the signing secret from {w.signature_scheme}</summary>
              <ProviderSecretStep factoryUid={factoryUid} webhookUid={webhookUid} scheme={w.signature_scheme} />
            </details>
          ) : null}
          {rotated ? (
            <section class="panel" aria-labelledby="rotated-heading">
              <h2 id="rotated-heading" tabIndex={-1} ref={(el) => el?.focus()}>
                New secret
              </h2>
              <SecretOnce ingressUrl={rotated.ingress_url} secret={rotated.secret} />
            </section>
          ) : null}
          <Deliveries factoryUid={factoryUid} webhookUid={webhookUid} />
        </>
      ) : null}
    </>
  );
}
