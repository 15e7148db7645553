import { APIUserAbortError, type ResponseOf, type RunEvent } from '@agentrun/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useClient } from '../api-context.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { ErrorText } from '../components/error-text.js';
import { JsonView } from '../components/json-view.js';
import { StateBadge } from '../components/state-badge.js';
import { formatBytes, formatTime } from '../format.js';
import { describe, type Problem } from '../problems.js';
import { Link } from '../router.js';
import { useLoad } from '../use-load.js';

type Run = ResponseOf<'getRun'>;

const FINISHED = new Set(['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED']);

/**
 * One run: what was asked (prompt, resolved config, creator, source, attachments), its live
 * transcript over SSE (docs/run-api.md, "Following a run live"), Cancel and Send follow-up.
 */
export function RunPage({ runId }: { runId: string }) {
  const client = useClient();
  const loaded = useLoad(() => client.runs.get(runId), [runId]);
  const [run, setRun] = useState<Run | undefined>();
  const [problem, setProblem] = useState<Problem | undefined>();
  useEffect(() => setRun(loaded.data), [loaded.data]);
  const refresh = async () => setRun(await client.runs.get(runId));

  if (loaded.problem) {
    return (
      <>
        <h1 tabIndex={-1}>Run</h1>
        <ErrorText problem={loaded.problem} />
        <p>
          Back to the <Link to="/runs">runs</Link>.
        </p>
      </>
    );
  }
  if (!run) return <p role="status">Loading the run…</p>;
  const finished = FINISHED.has(run.state);
  return (
    <>
      <p class="crumbs">
        <Link to="/runs">Runs</Link> /
      </p>
      <h1 tabIndex={-1}>{run.title || run.run_id}</h1>
      <p>
        State: <StateBadge state={run.state} />
        <span role="status" class="visually-hidden">
          State {run.state}
        </span>
        {run.status_message?.message ? <span class="status-message"> {run.status_message.message}</span> : null}
      </p>
      <div class="actions">
        {!finished ? (
          <ConfirmButton
            label="Cancel run"
            question="Cancel this run?"
            confirmLabel="Yes, cancel it"
            onConfirm={async () => {
              try {
                await client.runs.cancel(runId);
                await refresh();
                setProblem(undefined);
              } catch (error) {
                setProblem(describe(error));
              }
            }}
          />
        ) : null}
      </div>
      <ErrorText problem={problem} />
      <dl class="facts">
        <dt>Run ID</dt>
        <dd>
          <code>{run.run_id}</code>
        </dd>
        <dt>Source</dt>
        <dd>{run.source ?? '—'}</dd>
        <dt>Creator</dt>
        <dd>{run.creator ? `${run.creator.display_name ?? run.creator.uid} (${run.creator.type}, ${run.creator.uid})` : '—'}</dd>
        <dt>Created</dt>
        <dd>{formatTime(run.created_at)}</dd>
        <dt>Started</dt>
        <dd>{run.started_at ? formatTime(run.started_at) : 'not yet'}</dd>
        <dt>Updated</dt>
        <dd>{formatTime(run.updated_at)}</dd>
        {run.parent_run_id ? (
          <>
            <dt>Parent run</dt>
            <dd>
              <Link to={`/runs/${encodeURIComponent(run.parent_run_id)}`}>
                <code>{run.parent_run_id}</code>
              </Link>
            </dd>
          </>
        ) : null}
        {run.request_usage && Object.keys(run.request_usage).length > 0 ? (
          <>
            <dt>Usage</dt>
            <dd>
              {Object.entries(run.request_usage)
                .map(([name, amount]) => `${name.replaceAll('_', ' ')}: ${amount}`)
                .join(', ')}
            </dd>
          </>
        ) : null}
        {run.trigger ? (
          <>
            <dt>Started by</dt>
            <dd>
              webhook delivery <code>{run.trigger.delivery_id}</code> (
              <Link
                to={`/factories/${encodeURIComponent(run.trigger.factory_uid)}/automations/${encodeURIComponent(run.trigger.automation_id)}`}
              >
                automation
              </Link>
              )
            </dd>
          </>
        ) : null}
      </dl>
      <h2>Prompt</h2>
      <pre class="prompt">{run.prompt}</pre>
      <h2>Resolved config</h2>
      {run.agent_config && Object.keys(run.agent_config).length > 0 ? (
        <JsonView value={run.agent_config} />
      ) : (
        <p class="empty">No config: the executor's defaults apply.</p>
      )}
      <h2>Attachments</h2>
      <Attachments run={run} />
      <h2>Transcript</h2>
      <Transcript runId={runId} finished={finished} onState={() => void refresh().catch(() => {})} />
      <h2>Send follow-up</h2>
      <Followup runId={runId} onSent={refresh} disabled={run.state === 'CANCELLED' || run.state === 'ERROR'} />
    </>
  );
}

function Attachments({ run }: { run: Run }) {
  const client = useClient();
  const [problem, setProblem] = useState<Problem | undefined>();
  const files = run.attachments ?? [];
  if (files.length === 0) return <p class="empty">No attachments.</p>;
  return (
    <>
      <ul>
        {files.map((file) => (
          <li key={file.file_name}>
            <button
              type="button"
              class="link"
              onClick={async () => {
                try {
                  const bytes = await client.runs.attachment(run.run_id, file.file_name);
                  const url = URL.createObjectURL(new Blob([bytes], { type: file.mime_type }));
                  const a = document.createElement('a');
                  a.href = url;
                  a.download = file.file_name;
                  a.click();
                  setTimeout(() => URL.revokeObjectURL(url), 10_000);
                } catch (error) {
                  setProblem(describe(error));
                }
              }}
            >
              Download {file.file_name}
            </button>{' '}
            ({file.mime_type}, {formatBytes(file.size)})
          </li>
        ))}
      </ul>
      <ErrorText problem={problem} />
    </>
  );
}

/** The events so far, then live until the run finishes; followed again after a follow-up. */
function Transcript({ runId, finished, onState }: { runId: string; finished: boolean; onState: () => void }) {
  const client = useClient();
  const [events, setEvents] = useState<RunEvent[]>([]);
  const [problem, setProblem] = useState<Problem | undefined>();
  const lastId = useRef(0);
  const onStateRef = useRef(onState);
  onStateRef.current = onState;
  useEffect(() => {
    const abort = new AbortController();
    void (async () => {
      try {
        for await (const event of client.runs.stream(runId, { after: lastId.current, signal: abort.signal })) {
          lastId.current = event.id;
          setEvents((list) => [...list, event]);
          if (event.type === 'state') onStateRef.current();
        }
        onStateRef.current();
      } catch (error) {
        if (!(error instanceof APIUserAbortError)) setProblem(describe(error));
      }
    })();
    return () => abort.abort();
    // Followed again when the run leaves a finished state (a follow-up re-queues it).
  }, [client, runId, finished]);
  return (
    <>
      <ErrorText problem={problem} />
      {events.length === 0 ? <p class="empty">No events yet: they appear here as the run goes.</p> : null}
      <ol class="transcript" aria-live="polite" aria-label="Transcript">
        {events.map((event) => (
          <li key={event.id} class={`event event-${event.type}`}>
            <time dateTime={event.at}>{new Date(event.at).toLocaleTimeString()}</time> <span class="event-type">{event.type}</span>{' '}
            <EventText event={event} />
          </li>
        ))}
      </ol>
    </>
  );
}

function EventText({ event }: { event: RunEvent }) {
  const data = (event.data ?? {}) as Record<string, unknown>;
  switch (event.type) {
    case 'state':
      return (
        <span>
          {String(data.from)} → {String(data.to)}
          {data.status_message ? `: ${String(data.status_message)}` : ''}
        </span>
      );
    case 'status':
      return <span>{String(data.message ?? '')}</span>;
    case 'followup':
      return <span>follow-up: {String(data.message ?? '')}</span>;
    case 'output':
      return <span class="output">{String(data.text ?? '')}</span>;
    default:
      return <code>{JSON.stringify(data)}</code>;
  }
}

function Followup({ runId, onSent, disabled }: { runId: string; onSent: () => Promise<void>; disabled: boolean }) {
  const client = useClient();
  const [message, setMessage] = useState('');
  const [problem, setProblem] = useState<Problem | undefined>();
  const [sent, setSent] = useState<string | undefined>();
  if (disabled) return <p class="empty">A cancelled or errored run takes no follow-ups: start a new run instead.</p>;
  return (
    <form
      onSubmit={async (event) => {
        event.preventDefault();
        if (!message.trim()) return setProblem({ message: 'Write a message first.', fields: [] });
        try {
          const answer = await client.runs.followup(runId, { message });
          setMessage('');
          setProblem(undefined);
          setSent(`Sent; the run is ${answer.state}.`);
          await onSent();
        } catch (error) {
          setProblem(describe(error));
        }
      }}
    >
      <label for="followup-message">Message</label>
      <textarea id="followup-message" rows={3} value={message} onInput={(e) => setMessage(e.currentTarget.value)} />
      <ErrorText problem={problem} />
      <p role="status">{sent ?? ''}</p>
      <button type="submit">Send follow-up</button>
    </form>
  );
}
