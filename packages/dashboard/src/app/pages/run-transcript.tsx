import { APIUserAbortError, type RunEvent } from '@agentrun/client';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useClient } from '../api-context.js';
import { ArtifactView } from '../components/artifact-view.js';
import { ErrorText } from '../components/error-text.js';
import { ToolBlock } from '../components/tool-block.js';
import { describe, type Problem } from '../problems.js';
import { type Artifact, formatDuration, transcriptItems } from '../transcript-items.js';

/**
 * A run's events: those so far, then live until the run finishes; followed again after a
 * follow-up (when `finished` turns false). `onState` is called at each change of state and when
 * the stream ends. Nothing is read until `finished` is known (the run was read).
 */
export function useRunEvents(runId: string, finished: boolean | undefined, onState: () => void): { events: RunEvent[]; problem?: Problem } {
  const client = useClient();
  const [events, setEvents] = useState<RunEvent[]>([]);
  const [problem, setProblem] = useState<Problem | undefined>();
  const lastId = useRef(0);
  const onStateRef = useRef(onState);
  onStateRef.current = onState;
  useEffect(() => {
    if (finished === undefined) return;
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
  }, [client, runId, finished]);
  return problem ? { events, problem } : { events };
}

/** What each kind of artifact is called on its line. */
const ARTIFACT_WORDS: Record<Artifact['artifact_type'], string> = {
  PLAN: 'plan',
  PULL_REQUEST: 'pull request',
  SCREENSHOT: 'screenshot',
  FILE: 'file',
};

const time = (at: string) => <time dateTime={at}>{new Date(at).toLocaleTimeString()}</time>;

/**
 * A run's timeline (docs/dashboard.md, "A run's page"): when it was created, then each event in
 * its place: changes of state with their times, the agent's text, tool calls as blocks that fold
 * (each joined by its result when that arrives), follow-ups, and artifacts drawn as what they are.
 */
export function Timeline({ events, problem, createdAt }: { events: readonly RunEvent[]; problem?: Problem; createdAt: string }) {
  const items = useMemo(() => transcriptItems(events), [events]);
  return (
    <>
      <ErrorText problem={problem} />
      <ol class="transcript timeline" aria-live="polite" aria-label="Transcript">
        <li class="event event-created">
          {time(createdAt)} <span class="event-type">created</span>
        </li>
        {items.map((item) => {
          switch (item.kind) {
            case 'tool':
              return (
                <li key={item.id} class="event event-tool">
                  {time(item.at)}
                  <ToolBlock call={item.call} result={item.result} />
                </li>
              );
            case 'state':
              return (
                <li key={item.id} class={`event event-state state-to-${item.to.toLowerCase()}`}>
                  {time(item.at)} <span class="event-type">state</span>{' '}
                  <span>
                    {item.from} → {item.to}
                    {item.message ? `: ${item.message}` : ''}
                  </span>
                  {item.afterMs !== null ? <span class="hint"> after {formatDuration(item.afterMs)}</span> : null}
                </li>
              );
            case 'artifact':
              return (
                <li key={item.id} class="event event-artifact">
                  {time(item.at)} <span class="event-type">{ARTIFACT_WORDS[item.artifact.artifact_type]}</span>
                  <ArtifactView artifact={item.artifact} />
                </li>
              );
            default:
              return (
                <li key={item.id} class={`event event-${item.event.type}`}>
                  {time(item.event.at)} <span class="event-type">{item.event.type}</span> <EventText event={item.event} />
                </li>
              );
          }
        })}
      </ol>
      {events.length === 0 ? <p class="empty">No events yet: they appear here as the run goes.</p> : null}
    </>
  );
}

function EventText({ event }: { event: RunEvent }) {
  const data = (event.data ?? {}) as Record<string, unknown>;
  switch (event.type) {
    case 'status':
      return <span>{String(data.message ?? '')}</span>;
    case 'followup':
      return <span class="followup">follow-up: {String(data.message ?? '')}</span>;
    case 'output':
      return <span class="output">{String(data.text ?? '')}</span>;
    case 'truncated':
      return <span>The transcript reached its limit of {String(data.limit)} events; later events were not kept.</span>;
    default:
      return <code>{JSON.stringify(data)}</code>;
  }
}
