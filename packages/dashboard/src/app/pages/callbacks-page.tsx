import { useState } from 'preact/hooks';
import { useClient } from '../api-context.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { CopyButton } from '../components/copy-button.js';
import { ErrorText, FieldErrors } from '../components/error-text.js';
import { formatTime } from '../format.js';
import { describe, type Problem, problemsAt } from '../problems.js';
import { Link } from '../router.js';
import { useLoad } from '../use-load.js';

/** The events an endpoint can ask for (docs/callbacks.md, "Events"). */
const EVENT_TYPES = ['run.created', 'run.state_changed'] as const;
type EventType = (typeof EVENT_TYPES)[number];

/**
 * The team's run-state callbacks (docs/callbacks.md; docs/dashboard.md, its pages): the
 * endpoints (never a secret), enable, disable, delete, and a form to register one (its signing
 * secret shown this once).
 */
export function CallbacksPage() {
  const client = useClient();
  const callbacks = useLoad(() => client.callbacks.list(), []);
  const [problem, setProblem] = useState<Problem | undefined>();
  const act = async (action: () => Promise<unknown>) => {
    try {
      await action();
      setProblem(undefined);
      callbacks.reload();
    } catch (error) {
      setProblem(describe(error));
    }
  };
  return (
    <>
      <h1 tabIndex={-1}>Callbacks</h1>
      <p class="hint">
        URLs agentrun calls when the team's runs are created or change state, signed with Standard Webhooks, retried until they answer 2xx.
      </p>
      <ErrorText problem={callbacks.problem ?? problem} />
      {callbacks.data && callbacks.data.callbacks.length === 0 ? <p class="empty">No callbacks. Register a URL below.</p> : null}
      {callbacks.data && callbacks.data.callbacks.length > 0 ? (
        <table class="list">
          <caption class="visually-hidden">Callback endpoints</caption>
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">Runs of</th>
              <th scope="col">Events</th>
              <th scope="col">State</th>
              <th scope="col">Created</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {callbacks.data.callbacks.map((c) => (
              <tr key={c.id} data-testid={`callback-${c.id}`}>
                <td>
                  <Link to={`/callbacks/${encodeURIComponent(c.id)}`}>{c.url}</Link>
                </td>
                <td>{c.factory_uid ?? 'the whole team'}</td>
                <td>{c.event_types.length === 0 ? 'all' : c.event_types.join(', ')}</td>
                <td>
                  {c.enabled ? (
                    <span class="label label-ok">Enabled</span>
                  ) : (
                    <span class="label label-bad">{c.disabled_reason === 'failing' ? 'Disabled: failing' : 'Disabled'}</span>
                  )}
                </td>
                <td>{formatTime(c.created_at)}</td>
                <td>
                  <button type="button" onClick={() => act(() => client.callbacks.update(c.id, { enabled: !c.enabled }))}>
                    {c.enabled ? 'Disable' : 'Enable'}
                  </button>{' '}
                  <ConfirmButton
                    label="Delete"
                    question={`Delete the callback to ${c.url} and its delivery log?`}
                    confirmLabel="Yes, delete"
                    onConfirm={() => act(() => client.callbacks.delete(c.id))}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <h2>Register a callback</h2>
      <CreateCallbackForm onCreated={callbacks.reload} />
    </>
  );
}

function CreateCallbackForm({ onCreated }: { onCreated: () => void }) {
  const client = useClient();
  const [url, setUrl] = useState('');
  const [factory, setFactory] = useState('');
  const [events, setEvents] = useState<EventType[]>([]);
  const [problem, setProblem] = useState<Problem | undefined>();
  const [shown, setShown] = useState<string | undefined>();
  return (
    <form
      onSubmit={async (event) => {
        event.preventDefault();
        if (!url.trim()) return setProblem({ message: 'Give the URL to call.', fields: [] });
        try {
          const created = await client.callbacks.create({
            url: url.trim(),
            ...(factory.trim() ? { factory_uid: factory.trim() } : {}),
            ...(events.length > 0 ? { event_types: events } : {}),
          });
          setShown(created.secret);
          setUrl('');
          setFactory('');
          setEvents([]);
          setProblem(undefined);
          onCreated();
        } catch (error) {
          setProblem(describe(error));
        }
      }}
    >
      <label for="callback-url">URL</label>
      <input id="callback-url" type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} autoComplete="off" />
      <FieldErrors problems={problemsAt(problem, 'url')} id="callback-url-errors" />
      <label for="callback-factory">Factory UID (empty: every run of the team)</label>
      <input id="callback-factory" value={factory} onInput={(e) => setFactory(e.currentTarget.value)} autoComplete="off" />
      <fieldset>
        <legend>Events (none checked: all)</legend>
        {EVENT_TYPES.map((type) => (
          <label key={type} class="check">
            <input
              type="checkbox"
              name="event"
              value={type}
              checked={events.includes(type)}
              onChange={(e) => setEvents(e.currentTarget.checked ? [...events, type] : events.filter((t) => t !== type))}
            />{' '}
            <code>{type}</code>
          </label>
        ))}
      </fieldset>
      <ErrorText problem={problem} />
      <button type="submit">Register callback</button>
      {shown ? <SigningSecret secret={shown} /> : null}
    </form>
  );
}

/** A just-made signing secret: shown this once, with a copy button. */
function SigningSecret({ secret }: { secret: string }) {
  return (
    <dl class="facts secret-once">
      <dt>Signing secret</dt>
      <dd>
        <code data-testid="callback-secret">{secret}</code> <CopyButton text={secret} label="Copy secret" />
        <p class="warning">Shown this once: copy it now. It cannot be read again, only rotated.</p>
      </dd>
    </dl>
  );
}

/** One endpoint: its settings, Rotate secret, and its delivery log with each attempt and Resend. */
export function CallbackPage({ callbackId }: { callbackId: string }) {
  const client = useClient();
  const callback = useLoad(() => client.callbacks.get(callbackId), [callbackId]);
  const [cursor, setCursor] = useState<string | undefined>();
  const page = useLoad(() => client.callbacks.deliveries(callbackId, cursor ? { cursor } : {}), [callbackId, cursor]);
  const [problem, setProblem] = useState<Problem | undefined>();
  const [rotated, setRotated] = useState<string | undefined>();
  const c = callback.data;
  return (
    <>
      <p>
        <Link to="/callbacks">Callbacks</Link>
      </p>
      <h1 tabIndex={-1}>Callback {c ? c.url : callbackId}</h1>
      <ErrorText problem={callback.problem ?? problem} />
      {c ? (
        <dl class="facts">
          <dt>Runs of</dt>
          <dd>{c.factory_uid ?? 'the whole team'}</dd>
          <dt>Events</dt>
          <dd>{c.event_types.length === 0 ? 'all' : c.event_types.join(', ')}</dd>
          <dt>State</dt>
          <dd>
            {c.enabled ? 'Enabled' : c.disabled_reason === 'failing' ? 'Disabled: failing (enable it to send what waited)' : 'Disabled'}
          </dd>
          <dt>Failing since</dt>
          <dd>{c.failing_since ? formatTime(c.failing_since) : '—'}</dd>
        </dl>
      ) : null}
      <ConfirmButton
        label="Rotate secret"
        question="Replace the signing secret? Callbacks are signed with the new one from now on."
        confirmLabel="Yes, rotate"
        onConfirm={async () => {
          try {
            setRotated((await client.callbacks.rotateSecret(callbackId)).secret);
            setProblem(undefined);
          } catch (error) {
            setProblem(describe(error));
          }
        }}
      />
      {rotated ? <SigningSecret secret={rotated} /> : null}
      <section aria-labelledby="callback-deliveries-heading">
        <h2 id="callback-deliveries-heading">Deliveries</h2>
        <button type="button" onClick={page.reload}>
          Refresh deliveries
        </button>
        <ErrorText problem={page.problem} />
        {page.data && page.data.deliveries.length === 0 ? <p class="empty">No deliveries yet: they appear when a run changes.</p> : null}
        {page.data && page.data.deliveries.length > 0 ? (
          <table class="list">
            <caption class="visually-hidden">Deliveries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Run</th>
                <th scope="col">Change</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Resend</th>
              </tr>
            </thead>
            <tbody>
              {page.data.deliveries.map((d) => (
                <tr key={d.id} data-testid={`callback-delivery-${d.id}`}>
                  <td>
                    <code>{d.event_type}</code>
                  </td>
                  <td>
                    <Link to={`/runs/${encodeURIComponent(d.run_id)}`}>{d.run_id}</Link>
                  </td>
                  <td>
                    {d.from ?? '—'} → {d.to}
                  </td>
                  <td>
                    <span class={`label label-${d.status === 'succeeded' ? 'ok' : d.status === 'pending' ? 'neutral' : 'bad'}`}>
                      {d.status}
                    </span>
                  </td>
                  <td>
                    <ol class="attempts">
                      {d.attempts.map((a) => (
                        <li key={a.attempt}>
                          {formatTime(a.at)}: {a.ok ? `${a.status_code} OK` : a.error} ({a.duration_ms} ms)
                        </li>
                      ))}
                    </ol>
                  </td>
                  <td>
                    {d.status === 'pending' ? (
                      '—'
                    ) : (
                      <button
                        type="button"
                        onClick={async () => {
                          try {
                            await client.callbacks.resend(callbackId, d.id);
                            setProblem(undefined);
                            page.reload();
                          } catch (error) {
                            setProblem(describe(error));
                          }
                        }}
                      >
                        Resend
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        {page.data?.page_info.next_cursor ? (
          <button type="button" onClick={() => setCursor(page.data?.page_info.next_cursor)}>
            Older deliveries
          </button>
        ) : null}
      </section>
    </>
  );
}
