import type { ResponseOf } from '@agentrun/client';
import { useEffect, useState } from 'preact/hooks';
import { useClient } from '../api-context.js';
import { DeliveryOutcome } from '../components/delivery-outcome.js';
import { ErrorText } from '../components/error-text.js';
import { FactoryCrumbs } from '../components/factory-crumbs.js';
import { StateBadge } from '../components/state-badge.js';
import { formatBytes, formatTime } from '../format.js';
import { describe, type Problem } from '../problems.js';
import { Link } from '../router.js';
import { saveAs } from '../save-as.js';
import { useLoad } from '../use-load.js';

type Delivery = ResponseOf<'getDelivery'>;
type Resent = ResponseOf<'resendDelivery'>;

/** How often a delivery awaiting evaluation is read again, until its runs are known. */
const EVALUATING_POLL_MS = 1000;

/** What the stored headers show for a masked value (core's MASKED_VALUE). */
const MASKED = '[masked]';

/**
 * One delivery (docs/dashboard.md, "A delivery"): who sent it and how, its body (byte-exact to
 * download), the runs it started and, for each automation selecting its webhook, the filter's
 * verdict on it; Resend.
 */
export function DeliveryPage({ factoryUid, webhookUid, deliveryId }: { factoryUid: string; webhookUid: string; deliveryId: string }) {
  const client = useClient();
  const loaded = useLoad(() => client.deliveries.get(factoryUid, webhookUid, deliveryId), [factoryUid, webhookUid, deliveryId]);
  const webhook = useLoad(() => client.webhooks.get(factoryUid, webhookUid), [factoryUid, webhookUid]);
  const d = loaded.data;
  const evaluating = d?.status === 'Accepted' && d.run_ids === null;
  // Its runs are made after the 202 (docs/webhooks.md, "When runs start"): look again until they are.
  useEffect(() => {
    if (!evaluating) return;
    const timer = setTimeout(loaded.reload, EVALUATING_POLL_MS);
    return () => clearTimeout(timer);
  }, [evaluating, d]);
  const webhookPath = `/factories/${encodeURIComponent(factoryUid)}/webhooks/${encodeURIComponent(webhookUid)}`;

  return (
    <>
      <FactoryCrumbs factoryUid={factoryUid} />
      <p class="crumbs">
        <Link to={webhookPath}>{webhook.data ? `Webhook ${webhook.data.name}` : 'Webhook'}</Link> /
      </p>
      <h1 tabIndex={-1} class="wrap">
        Delivery <code>{deliveryId}</code>
      </h1>
      <ErrorText problem={loaded.problem} />
      {d ? (
        <>
          <Facts delivery={d} webhookPath={webhookPath} />
          <Started delivery={d} webhookPath={webhookPath} />
          {d.status === 'Accepted' ? (
            <Automations factoryUid={factoryUid} webhookUid={webhookUid} delivery={d} />
          ) : (
            <p class="empty">Only an accepted delivery is evaluated against the automations: this one started nothing.</p>
          )}
          <Headers delivery={d} />
          <Body factoryUid={factoryUid} webhookUid={webhookUid} delivery={d} />
          {d.status === 'Accepted' ? (
            <Resend factoryUid={factoryUid} webhookUid={webhookUid} delivery={d} webhookPath={webhookPath} />
          ) : null}
        </>
      ) : null}
    </>
  );
}

function Facts({ delivery: d, webhookPath }: { delivery: Delivery; webhookPath: string }) {
  return (
    <dl class="facts">
      <dt>Status</dt>
      <dd>
        <span class={`label label-${d.status === 'Accepted' ? 'ok' : d.status === 'Duplicate' ? 'neutral' : 'bad'}`}>{d.status}</span>
      </dd>
      <dt>Received</dt>
      <dd>{formatTime(d.received_at)}</dd>
      <dt>Size</dt>
      <dd>{formatBytes(d.size)}</dd>
      <dt>Identity</dt>
      <dd>
        {d.resent_from ? (
          <>
            resent from <Link to={`${webhookPath}/deliveries/${encodeURIComponent(d.resent_from)}`}>{d.resent_from}</Link>
          </>
        ) : d.identity ? (
          <code>{d.identity}</code>
        ) : (
          '—'
        )}
      </dd>
      <dt>From</dt>
      <dd data-testid="remote-address">{d.request?.remote_address ?? (d.request ? 'the server was not told' : '—')}</dd>
      <dt>User agent</dt>
      <dd>{d.request?.user_agent ?? '—'}</dd>
    </dl>
  );
}

/** The runs it started, each with its state; else why there are none (yet). */
function Started({ delivery: d, webhookPath }: { delivery: Delivery; webhookPath: string }) {
  const client = useClient();
  const ids = d.run_ids ?? [];
  const runs = useLoad(() => Promise.all(ids.map((id) => client.runs.get(id))), [ids.join(',')]);
  return (
    <section aria-labelledby="started-heading">
      <h2 id="started-heading">Runs it started</h2>
      {d.run_ids !== null && ids.length === 0 ? (
        <p>
          matched nothing: <a href="#automations-heading">each automation's verdict</a> says why.
        </p>
      ) : ids.length === 0 ? (
        <p>
          <DeliveryOutcome entry={d} deliveryPath={`${webhookPath}/deliveries/${encodeURIComponent(d.delivery_id)}`} />
        </p>
      ) : (
        <p>
          started {ids.length} run{ids.length === 1 ? '' : 's'}:
        </p>
      )}
      <ErrorText problem={runs.problem} />
      {runs.data && runs.data.length > 0 ? (
        <ul class="started">
          {runs.data.map((run) => (
            <li key={run.run_id}>
              <StateBadge state={run.state} /> <Link to={`/runs/${encodeURIComponent(run.run_id)}`}>{run.title || run.run_id}</Link>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

/**
 * Each enabled or disabled automation selecting the webhook, with the filter's verdict on this
 * delivery as the automation is now (the Test filter operation: core's explanation, not ours).
 */
function Automations({ factoryUid, webhookUid, delivery: d }: { factoryUid: string; webhookUid: string; delivery: Delivery }) {
  const client = useClient();
  const verdicts = useLoad(async () => {
    const { automations } = await client.automations.list(factoryUid);
    const selecting = automations.filter((a) => a.triggers.some((t) => t.filter.webhook_ids.includes(webhookUid)));
    return Promise.all(
      selecting.map(async (automation) => ({
        automation,
        result: await client.automations.testFilter(factoryUid, automation.id, { delivery_id: d.delivery_id }),
      })),
    );
  }, [factoryUid, webhookUid, d.delivery_id]);
  // A link to "why" lands here.
  useEffect(() => {
    if (verdicts.data && location.hash === '#automations-heading') document.getElementById('automations-heading')?.scrollIntoView();
  }, [verdicts.data]);
  return (
    <section aria-labelledby="automations-heading">
      <h2 id="automations-heading">Automations</h2>
      <p class="hint">Each automation selecting this webhook, and its filter's verdict on this delivery as the automation is now.</p>
      <ErrorText problem={verdicts.problem} />
      {verdicts.data && verdicts.data.length === 0 ? (
        <p class="empty">No automation selects this webhook: add one with a webhook trigger on its factory's page.</p>
      ) : null}
      <ul class="verdicts">
        {verdicts.data?.map(({ automation, result }) => (
          <li key={automation.id} class="test-result" data-testid="automation-verdict">
            <Link to={`/factories/${encodeURIComponent(factoryUid)}/automations/${encodeURIComponent(automation.id)}`}>
              {automation.name}
            </Link>
            : <strong class={`verdict ${result.result === 'Would trigger' ? 'verdict-yes' : 'verdict-no'}`}>{result.result}</strong>
            <ul>
              <li>
                Webhook check: {result.webhook_check.passed ? 'passed' : 'failed'}: {result.webhook_check.detail}
              </li>
              <li>
                Payload check: {result.payload_check.passed ? 'passed' : 'failed'}: <code>{result.payload_check.detail}</code>
              </li>
              {result.note ? <li>{result.note}</li> : null}
            </ul>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Headers({ delivery: d }: { delivery: Delivery }) {
  const request = d.request;
  return (
    <section aria-labelledby="headers-heading">
      <h2 id="headers-heading">Headers</h2>
      {request ? (
        <>
          <p class="hint">
            Secrets are masked before they are stored: credentials, signatures, tokens, keys, and any value holding the webhook's secret.
          </p>
          <table class="list headers">
            <caption class="visually-hidden">Request headers, as received</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {request.headers.map(({ name, value }) => (
                <tr key={name}>
                  <th scope="row">
                    <code>{name}</code>
                  </th>
                  <td>{value === MASKED ? <span class="masked">{MASKED}</span> : <code>{value}</code>}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {request.omitted_headers > 0 ? (
            <p class="hint">
              {request.omitted_headers} more header{request.omitted_headers === 1 ? ' was' : 's were'} not kept (the limits:
              docs/webhooks.md).
            </p>
          ) : null}
        </>
      ) : (
        <p class="empty">
          {d.status === 'Accepted'
            ? 'No request was kept: a resend has none, and nor does a delivery stored before headers were kept.'
            : 'Only an accepted delivery keeps its headers.'}
        </p>
      )}
    </section>
  );
}

function Body({ factoryUid, webhookUid, delivery: d }: { factoryUid: string; webhookUid: string; delivery: Delivery }) {
  const client = useClient();
  const [problem, setProblem] = useState<Problem | undefined>();
  return (
    <section aria-labelledby="body-heading">
      <h2 id="body-heading">Body</h2>
      {d.payload === undefined ? (
        <p class="empty">Only an accepted delivery keeps its body.</p>
      ) : (
        <>
          <button
            type="button"
            onClick={async () => {
              try {
                saveAs(
                  await client.deliveries.payload(factoryUid, webhookUid, d.delivery_id),
                  'application/json',
                  `delivery-${d.delivery_id}.json`,
                );
                setProblem(undefined);
              } catch (error) {
                setProblem(describe(error));
              }
            }}
          >
            Download the body as received
          </button>
          <ErrorText problem={problem} />
          <p class="hint">Shown re-indented; the download is the exact bytes received.</p>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box must take the focus for the keyboard to scroll it (WCAG 2.1.1; axe's scrollable-region-focusable) */}
          <section class="body-scroll" aria-label="Body, pretty-printed" tabIndex={0}>
            <pre class="body" data-testid="delivery-body">
              {JSON.stringify(d.payload, null, 2)}
            </pre>
          </section>
        </>
      )}
    </section>
  );
}

function Resend({
  factoryUid,
  webhookUid,
  delivery: d,
  webhookPath,
}: {
  factoryUid: string;
  webhookUid: string;
  delivery: Delivery;
  webhookPath: string;
}) {
  const client = useClient();
  const [resent, setResent] = useState<Resent | undefined>();
  const [problem, setProblem] = useState<Problem | undefined>();
  return (
    <section aria-labelledby="resend-heading">
      <h2 id="resend-heading">Resend</h2>
      <p class="hint">Evaluates this body again against the automations as they are now, as a new delivery.</p>
      <button
        type="button"
        onClick={async () => {
          try {
            setResent(await client.deliveries.resend(factoryUid, webhookUid, d.delivery_id));
            setProblem(undefined);
          } catch (error) {
            setProblem(describe(error));
          }
        }}
      >
        Resend this delivery
      </button>
      <ErrorText problem={problem} />
      {resent ? (
        <p role="status">
          Resent as{' '}
          <Link to={`${webhookPath}/deliveries/${encodeURIComponent(resent.delivery.delivery_id)}`}>{resent.delivery.delivery_id}</Link>:{' '}
          <DeliveryOutcome
            entry={resent.delivery}
            deliveryPath={`${webhookPath}/deliveries/${encodeURIComponent(resent.delivery.delivery_id)}`}
          />
        </p>
      ) : null}
    </section>
  );
}
