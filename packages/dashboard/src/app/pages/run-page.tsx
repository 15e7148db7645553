import type { ResponseOf } from '@agentrun/client';
import { useEffect, useState } from 'preact/hooks';
import { useClient } from '../api-context.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { ErrorText } from '../components/error-text.js';
import { JsonView } from '../components/json-view.js';
import { StateBadge } from '../components/state-badge.js';
import { formatBytes, formatTime } from '../format.js';
import { describe, type Problem } from '../problems.js';
import { Link } from '../router.js';
import { useLoad } from '../use-load.js';
import { Transcript } from './run-transcript.js';

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
      <h2>Artifacts</h2>
      <Artifacts run={run} />
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

type Artifact = NonNullable<Run['artifacts']>[number];

/** Save bytes as a file named `name`, through a blob URL (the page's CSP allows blob:). */
function saveAs(bytes: ArrayBuffer, type: string, name: string) {
  const url = URL.createObjectURL(new Blob([bytes], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * What the run's agent reported (docs/artifacts.md): pull requests and plans by URL as links,
 * screenshots shown inline (their bytes fetched with the API key into a blob URL, never a page
 * of theirs), files and plans' text to download.
 */
function Artifacts({ run }: { run: Run }) {
  const artifacts = run.artifacts ?? [];
  if (artifacts.length === 0) return <p class="empty">No artifacts: an agent reports pull requests, plans, screenshots and files.</p>;
  return (
    <ul class="artifacts">
      {artifacts.map((artifact, i) => (
        <li key={`${artifact.artifact_type}-${i}`}>
          <ArtifactView artifact={artifact} />
        </li>
      ))}
    </ul>
  );
}

function ArtifactView({ artifact }: { artifact: Artifact }) {
  const client = useClient();
  const [problem, setProblem] = useState<Problem | undefined>();
  const download = async (uid: string, type: string, name: string) => {
    try {
      saveAs(await client.artifacts.download(uid), type, name);
    } catch (error) {
      setProblem(describe(error));
    }
  };
  switch (artifact.artifact_type) {
    case 'PULL_REQUEST':
      return (
        <>
          Pull request{' '}
          <a href={artifact.data.url} target="_blank" rel="noopener noreferrer">
            {artifact.data.url}
          </a>{' '}
          (branch <code>{artifact.data.branch}</code>)
        </>
      );
    case 'PLAN': {
      const { artifact_uid: uid, title, url } = artifact.data;
      return (
        <>
          Plan {title ? <strong>{title}</strong> : null}{' '}
          {url ? (
            <a href={url} target="_blank" rel="noopener noreferrer">
              open
            </a>
          ) : uid ? (
            <button type="button" class="link" onClick={() => download(uid, 'text/markdown', `${title || 'plan'}.md`)}>
              Download the plan
            </button>
          ) : null}
          <ErrorText problem={problem} />
        </>
      );
    }
    case 'SCREENSHOT':
      return (
        <>
          <Screenshot uid={artifact.data.artifact_uid} alt={artifact.data.description ?? 'Screenshot'} />
          {artifact.data.description ? <p>{artifact.data.description}</p> : null}
        </>
      );
    case 'FILE':
      return (
        <>
          <button
            type="button"
            class="link"
            onClick={() => download(artifact.data.artifact_uid, artifact.data.mime_type, artifact.data.filename)}
          >
            Download {artifact.data.filename}
          </button>{' '}
          (<code>{artifact.data.filepath}</code>, {artifact.data.mime_type}
          {artifact.data.size_bytes !== undefined ? `, ${formatBytes(artifact.data.size_bytes)}` : ''})
          <ErrorText problem={problem} />
        </>
      );
  }
}

/** A screenshot inline: its bytes read with the API key, shown from a blob URL of its image type. */
function Screenshot({ uid, alt }: { uid: string; alt: string }) {
  const client = useClient();
  const [src, setSrc] = useState<string | undefined>();
  const [problem, setProblem] = useState<Problem | undefined>();
  useEffect(() => {
    let url: string | undefined;
    let live = true;
    void (async () => {
      try {
        const artifact = await client.artifacts.get(uid);
        const type = 'content_type' in artifact.data && artifact.data.content_type ? artifact.data.content_type : 'image/png';
        const bytes = await client.artifacts.download(uid);
        if (!live) return;
        url = URL.createObjectURL(new Blob([bytes], { type }));
        setSrc(url);
      } catch (error) {
        if (live) setProblem(describe(error));
      }
    })();
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [client, uid]);
  if (problem) return <ErrorText problem={problem} />;
  return src ? <img class="screenshot" src={src} alt={alt} /> : <span role="status">Loading the screenshot…</span>;
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
