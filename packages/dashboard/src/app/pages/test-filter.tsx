import type { ResponseOf } from '@agentrun/client';
import { useState } from 'preact/hooks';
import { useClient } from '../api-context.js';
import { ErrorText } from '../components/error-text.js';
import { formatTime } from '../format.js';
import { describe, type Problem } from '../problems.js';
import { useLoad } from '../use-load.js';

type Automation = ResponseOf<'getAutomation'>;
type Webhook = ResponseOf<'listWebhooks'>['webhooks'][number];
type Result = ResponseOf<'testFilter'>;

/**
 * Test filter (docs/management-api.md, "Automations"): would a stored delivery start a run? Both
 * checks are shown, the payload check's detail naming the failing path.
 */
export function TestFilter({ factoryUid, automation, webhooks }: { factoryUid: string; automation: Automation; webhooks: Webhook[] }) {
  const client = useClient();
  const [webhookUid, setWebhookUid] = useState(automation.triggers[0]?.filter.webhook_ids[0] ?? webhooks[0]?.uid ?? '');
  const deliveries = useLoad(
    () => (webhookUid ? client.deliveries.listPage(factoryUid, webhookUid, { limit: 50 }) : Promise.resolve(undefined)),
    [factoryUid, webhookUid],
  );
  const accepted = deliveries.data?.deliveries.filter((d) => d.status === 'Accepted') ?? [];
  const [deliveryId, setDeliveryId] = useState('');
  const [result, setResult] = useState<Result | undefined>();
  const [problem, setProblem] = useState<Problem | undefined>();
  const chosen = deliveryId || accepted[0]?.delivery_id || '';

  return (
    <section class="panel" aria-labelledby="test-filter-heading">
      <h2 id="test-filter-heading">Test filter</h2>
      <p class="hint">Runs this automation's saved filter on a stored delivery; nothing is started.</p>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          if (!chosen) return setProblem({ message: 'Choose a delivery to test against.', fields: [] });
          try {
            setResult(await client.automations.testFilter(factoryUid, automation.id, { delivery_id: chosen }));
            setProblem(undefined);
          } catch (error) {
            setResult(undefined);
            setProblem(describe(error));
          }
        }}
      >
        <label for="test-webhook">Webhook</label>
        <select
          id="test-webhook"
          value={webhookUid}
          onChange={(e) => {
            setWebhookUid(e.currentTarget.value);
            setDeliveryId('');
          }}
        >
          {webhooks.map((w) => (
            <option key={w.uid} value={w.uid}>
              {w.name}
            </option>
          ))}
        </select>
        <ErrorText problem={deliveries.problem} />
        {deliveries.data && accepted.length === 0 ? (
          <p class="empty">This webhook has no accepted delivery to test against yet: send it one first.</p>
        ) : null}
        {accepted.length > 0 ? (
          <>
            <label for="test-delivery">Delivery</label>
            <select id="test-delivery" value={chosen} onChange={(e) => setDeliveryId(e.currentTarget.value)}>
              {accepted.map((d) => (
                <option key={d.delivery_id} value={d.delivery_id}>
                  {d.delivery_id} ({formatTime(d.received_at)})
                </option>
              ))}
            </select>
          </>
        ) : null}
        <button type="submit" disabled={!chosen}>
          Test filter
        </button>
      </form>
      <ErrorText problem={problem} />
      {result ? (
        <div class="test-result" role="status">
          <p class={`verdict ${result.result === 'Would trigger' ? 'verdict-yes' : 'verdict-no'}`}>{result.result}</p>
          <ul>
            <li>
              Webhook check: {result.webhook_check.passed ? 'passed' : 'failed'}: {result.webhook_check.detail}
            </li>
            <li>
              Payload check: {result.payload_check.passed ? 'passed' : 'failed'}: <code>{result.payload_check.detail}</code>
            </li>
          </ul>
          {result.note ? <p>{result.note}</p> : null}
        </div>
      ) : null}
    </section>
  );
}
