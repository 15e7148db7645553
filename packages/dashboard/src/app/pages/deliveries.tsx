import type { ResponseOf } from '@agentrun/client';
import { useState } from 'preact/hooks';
import { useClient } from '../api-context.js';
import { DeliveryOutcome } from '../components/delivery-outcome.js';
import { ErrorText } from '../components/error-text.js';
import { JsonView } from '../components/json-view.js';
import { formatBytes, formatTime } from '../format.js';
import { describe, type Problem } from '../problems.js';
import { Link } from '../router.js';
import { useLoad } from '../use-load.js';

type Delivery = ResponseOf<'getDelivery'>;

/**
 * A webhook's delivery log, newest first (docs/management-api.md, "The delivery log"): each entry
 * links to its page and says what it started.
 */
export function Deliveries({ factoryUid, webhookUid }: { factoryUid: string; webhookUid: string }) {
  const client = useClient();
  const deliveryPath = (id: string) =>
    `/factories/${encodeURIComponent(factoryUid)}/webhooks/${encodeURIComponent(webhookUid)}/deliveries/${encodeURIComponent(id)}`;
  const [cursor, setCursor] = useState<string | undefined>();
  const page = useLoad(
    () => client.deliveries.listPage(factoryUid, webhookUid, cursor ? { cursor, limit: 50 } : { limit: 50 }),
    [factoryUid, webhookUid, cursor],
  );
  const [shown, setShown] = useState<Delivery | undefined>();
  const [problem, setProblem] = useState<Problem | undefined>();
  const [resent, setResent] = useState<ResponseOf<'resendDelivery'> | undefined>();
  /** Evaluate the delivery again against today's automations (docs/management-api.md, "Resending a delivery"). */
  const resend = async (deliveryId: string) => {
    try {
      setResent(await client.deliveries.resend(factoryUid, webhookUid, deliveryId));
      setProblem(undefined);
      page.reload();
    } catch (error) {
      setProblem(describe(error));
    }
  };
  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Recent deliveries</h2>
      <button type="button" onClick={page.reload}>
        Refresh deliveries
      </button>
      <ErrorText problem={page.problem} />
      {page.data && page.data.deliveries.length === 0 ? (
        <p class="empty">No deliveries yet. Send a POST to the ingress URL with the secret, and it shows up here.</p>
      ) : null}
      {page.data && page.data.deliveries.length > 0 ? (
        <table class="list stack">
          <caption class="visually-hidden">Deliveries, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Status</th>
              <th scope="col">Size</th>
              <th scope="col">Received</th>
              <th scope="col">Delivery ID</th>
              <th scope="col">Sender's ID</th>
              <th scope="col">Started</th>
              <th scope="col">Payload</th>
            </tr>
          </thead>
          <tbody>
            {page.data.deliveries.map((d) => (
              <tr key={d.delivery_id}>
                <td data-label="Status">
                  <span class={`label label-${d.status === 'Accepted' ? 'ok' : d.status === 'Duplicate' ? 'neutral' : 'bad'}`}>
                    {d.status}
                  </span>
                </td>
                <td data-label="Size">{formatBytes(d.size)}</td>
                <td data-label="Received">{formatTime(d.received_at)}</td>
                <td data-label="Delivery ID">
                  <Link to={deliveryPath(d.delivery_id)}>
                    <code>{d.delivery_id}</code>
                  </Link>
                </td>
                <td data-label="Sender's ID">
                  {d.resent_from ? (
                    <span>
                      resent from <code>{d.resent_from}</code>
                    </span>
                  ) : d.identity ? (
                    <code>{d.identity}</code>
                  ) : (
                    '—'
                  )}
                </td>
                <td data-label="Started">
                  <DeliveryOutcome entry={d} deliveryPath={deliveryPath(d.delivery_id)} />
                </td>
                <td data-label="Payload">
                  {d.status === 'Accepted' ? (
                    <button
                      type="button"
                      aria-label={`Show payload of ${d.delivery_id}`}
                      onClick={async () => {
                        try {
                          setShown(await client.deliveries.get(factoryUid, webhookUid, d.delivery_id));
                          setProblem(undefined);
                        } catch (error) {
                          setProblem(describe(error));
                        }
                      }}
                    >
                      Show payload
                    </button>
                  ) : null}
                  {d.status === 'Accepted' ? (
                    <button type="button" aria-label={`Resend ${d.delivery_id}`} onClick={() => resend(d.delivery_id)}>
                      Resend
                    </button>
                  ) : (
                    <span class="hint">not kept</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {page.data?.page_info.has_next_page && page.data.page_info.next_cursor ? (
        <button type="button" onClick={() => setCursor(page.data!.page_info.next_cursor!)}>
          Older deliveries
        </button>
      ) : null}
      {cursor ? (
        <button type="button" onClick={() => setCursor(undefined)}>
          Newest deliveries
        </button>
      ) : null}
      <ErrorText problem={problem} />
      {resent ? (
        <p role="status">
          Resent as <code>{resent.delivery.delivery_id}</code>:{' '}
          {resent.run_ids.length === 0
            ? 'no automation wants it now.'
            : `${resent.run_ids.length} run${resent.run_ids.length === 1 ? '' : 's'} started.`}
        </p>
      ) : null}
      {shown ? (
        <section class="panel" aria-labelledby="payload-heading">
          <h3 id="payload-heading">
            Payload of <code>{shown.delivery_id}</code>
          </h3>
          <JsonView value={shown.payload} />
        </section>
      ) : null}
    </section>
  );
}
