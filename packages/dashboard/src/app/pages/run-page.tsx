import { type ResponseOf, type RunEvent, TERMINAL_STATES } from '@agentrun/client';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { useClient } from '../api-context.js';
import { ArtifactView } from '../components/artifact-view.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { CopyButton } from '../components/copy-button.js';
import { ErrorText } from '../components/error-text.js';
import { JsonView } from '../components/json-view.js';
import { StateBadge } from '../components/state-badge.js';
import { formatBytes, formatTime } from '../format.js';
import { describe, type Problem } from '../problems.js';
import { Link } from '../router.js';
import { runCurlLines } from '../run-curl.js';
import { saveAs } from '../save-as.js';
import { liveState, runWorker } from '../transcript-items.js';
import { useLoad } from '../use-load.js';
import { Timeline, useRunEvents } from './run-transcript.js';

type Run = ResponseOf<'getRun'>;

/**
 * One run (docs/dashboard.md, "A run's page"): what was asked (prompt, resolved config, creator,
 * source, attachments), where it ran, its timeline live over SSE (docs/run-api.md, "Following a
 * run live"), its state in the header as the timeline tells it, its API calls to copy as curl,
 * Cancel and Send follow-up.
 */
export function RunPage({ runId }: { runId: string }) {
  const client = useClient();
  const loaded = useLoad(() => client.runs.get(runId), [runId]);
  const [run, setRun] = useState<Run | undefined>();
  useEffect(() => setRun(loaded.data), [loaded.data]);
  const refresh = async () => setRun(await client.runs.get(runId));
  // Followed from the first read on; the stream's end and each change of state read the run again.
  const finished = run ? TERMINAL_STATES.has(run.state) : undefined;
  const { events, problem: streamProblem } = useRunEvents(runId, finished, () => void refresh().catch(() => {}));

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
  return <RunView run={run} events={events} streamProblem={streamProblem} refresh={refresh} />;
}

function RunView({
  run,
  events,
  streamProblem,
  refresh,
}: {
  run: Run;
  events: readonly RunEvent[];
  streamProblem: Problem | undefined;
  refresh: () => Promise<void>;
}) {
  const client = useClient();
  const runId = run.run_id;
  const [problem, setProblem] = useState<Problem | undefined>();
  // The header follows the stream's state events at once, before the run is read again.
  const state = liveState(events, run);
  const finished = TERMINAL_STATES.has(state as Run['state']);
  const worker = runWorker(events);
  const config = (run.agent_config ?? {}) as { environment_id?: string; harness?: { type?: string }; worker_host?: string };
  return (
    <>
      <p class="crumbs">
        <Link to="/runs">Runs</Link> /
      </p>
      <h1 tabIndex={-1}>{run.title || run.run_id}</h1>
      <p>
        State: <StateBadge state={state} />
        <span role="status" class="visually-hidden">
          State {state}
        </span>
        {run.status_message?.message && state === run.state ? <span class="status-message"> {run.status_message.message}</span> : null}
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
        <dt>Harness</dt>
        <dd>{config.harness?.type ?? 'the default'}</dd>
        <dt>Environment</dt>
        <dd>{config.environment_id ? <code>{config.environment_id}</code> : 'none'}</dd>
        <dt>Worker</dt>
        <dd>
          {worker ? (
            <>
              <code>{worker.id}</code>
              {worker.host ? (
                <>
                  {' '}
                  on host <code>{worker.host}</code>
                </>
              ) : null}
            </>
          ) : config.worker_host ? (
            <>
              not yet; host <code>{config.worker_host}</code> asked
            </>
          ) : (
            'not yet'
          )}
        </dd>
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
      <h2>Timeline</h2>
      <Timeline events={events} problem={streamProblem} createdAt={run.created_at} />
      <h2>Send follow-up</h2>
      <Followup runId={runId} onSent={refresh} disabled={state === 'CANCELLED' || state === 'ERROR'} />
      <h2>Artifacts</h2>
      <Artifacts run={run} events={events} />
      <h2>Attachments</h2>
      <Attachments run={run} />
      <h2>Resolved config</h2>
      {run.agent_config && Object.keys(run.agent_config).length > 0 ? (
        <JsonView value={run.agent_config} />
      ) : (
        <p class="empty">No config: the executor's defaults apply.</p>
      )}
      <h2>API calls</h2>
      <CurlLines runId={runId} />
    </>
  );
}

/**
 * The run's artifacts are drawn in the timeline where the agent reported them; here, how many, and
 * any the timeline lacks (a transcript cut at its limit) drawn in full.
 */
function Artifacts({ run, events }: { run: Run; events: readonly RunEvent[] }) {
  const artifacts = run.artifacts ?? [];
  const inTimeline = useMemo(() => new Set(events.filter((e) => e.type === 'artifact').map((e) => JSON.stringify(e.data))), [events]);
  if (artifacts.length === 0) return <p class="empty">No artifacts: an agent reports pull requests, plans, screenshots and files.</p>;
  const missing = artifacts.filter((artifact) => !inTimeline.has(JSON.stringify(artifact)));
  const shown = artifacts.length - missing.length;
  return (
    <>
      <p>
        {artifacts.length} {artifacts.length === 1 ? 'artifact' : 'artifacts'}
        {shown > 0 ? `; ${shown === artifacts.length ? 'each' : shown} shown in the timeline above, where the agent reported it` : ''}.
      </p>
      {missing.length > 0 ? (
        <ul class="artifacts">
          {missing.map((artifact, i) => (
            <li key={`${artifact.artifact_type}-${i}`}>
              <ArtifactView artifact={artifact} />
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}

/** The run's API calls as curl lines to copy, with `$AGENTRUN_API_KEY` in place of the key (run-curl.ts). */
function CurlLines({ runId }: { runId: string }) {
  const client = useClient();
  return (
    <>
      <p class="hint">
        Copied with <code>$AGENTRUN_API_KEY</code> in place of the key: set it in your shell first.
      </p>
      <ul class="curl-lines">
        {runCurlLines(client.baseURL, runId).map((line) => (
          <li key={line.label}>
            <CopyButton text={line.command} label={`Copy curl: ${line.label}`} /> <code class="curl">{line.command}</code>
          </li>
        ))}
      </ul>
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
                  saveAs(await client.runs.attachment(run.run_id, file.file_name), file.mime_type, file.file_name);
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
