import { useClient } from '../api-context.js';
import { ErrorText } from '../components/error-text.js';
import { Link } from '../router.js';
import { useLoad } from '../use-load.js';
import { FactorySource } from './factory-source.js';
import { WebhookCreate } from './webhook-create.js';

/** A factory: its source repository (if any), its webhooks (with the create form) and its automations. */
export function FactoryPage({ factoryUid }: { factoryUid: string }) {
  const client = useClient();
  const factory = useLoad(() => client.factories.get(factoryUid), [factoryUid]);
  const webhooks = useLoad(() => client.webhooks.list(factoryUid), [factoryUid]);
  const automations = useLoad(() => client.automations.list(factoryUid), [factoryUid]);
  const base = `/factories/${encodeURIComponent(factoryUid)}`;
  return (
    <>
      <p class="crumbs">
        <Link to="/factories">Factories</Link> /
      </p>
      <h1 tabIndex={-1}>{factory.data?.name ?? 'Factory'}</h1>
      <ErrorText problem={factory.problem} />
      {factory.data ? <FactorySource factoryUid={factoryUid} hasSource={factory.data.has_source} /> : null}
      <section aria-labelledby="webhooks-heading">
        <h2 id="webhooks-heading">Webhooks</h2>
        <ErrorText problem={webhooks.problem} />
        {webhooks.data && webhooks.data.webhooks.length === 0 ? (
          <p class="empty">No webhooks yet. Create one below and give its URL and secret to the sender.</p>
        ) : null}
        {webhooks.data && webhooks.data.webhooks.length > 0 ? (
          <table class="list">
            <caption class="visually-hidden">Webhooks</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Authentication</th>
                <th scope="col">Enabled</th>
                <th scope="col">Ingress URL</th>
              </tr>
            </thead>
            <tbody>
              {webhooks.data.webhooks.map((w) => (
                <tr key={w.uid}>
                  <td>
                    <Link to={`${base}/webhooks/${encodeURIComponent(w.uid)}`}>{w.name}</Link>
                  </td>
                  <td>{w.auth_mode === 'signature' ? `signature (${w.signature_scheme})` : w.auth_mode}</td>
                  <td>{w.enabled ? 'Enabled' : 'Disabled'}</td>
                  <td>
                    <code>{w.ingress_url}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        <WebhookCreate factoryUid={factoryUid} onCreated={webhooks.reload} />
      </section>
      <section aria-labelledby="automations-heading">
        <h2 id="automations-heading">Automations</h2>
        <ErrorText problem={automations.problem} />
        {automations.data && automations.data.automations.length === 0 ? (
          <p class="empty">No automations yet. Create one to start a run when a webhook receives a matching delivery.</p>
        ) : null}
        {automations.data && automations.data.automations.length > 0 ? (
          <ul class="cards">
            {automations.data.automations.map((a) => (
              <li key={a.id}>
                <Link to={`${base}/automations/${encodeURIComponent(a.id)}`}>{a.name}</Link> {a.enabled ? '' : '(disabled)'}
              </li>
            ))}
          </ul>
        ) : null}
        <p>
          <Link to={`${base}/automations/new`} class="button">
            New automation
          </Link>
        </p>
      </section>
    </>
  );
}
