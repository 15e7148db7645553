import { APIUserAbortError, type RunEvent } from '@agentrun/client';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useClient } from '../api-context.js';
import { ErrorText } from '../components/error-text.js';
import { ToolBlock } from '../components/tool-block.js';
import { describe, type Problem } from '../problems.js';
import { transcriptItems } from '../transcript-items.js';

/**
 * A run's transcript: the events so far, then live until the run finishes; followed again after a
 * follow-up. Tool calls show as blocks that fold, each joined by its result when that arrives.
 */
export function Transcript({ runId, finished, onState }: { runId: string; finished: boolean; onState: () => void }) {
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
  const items = useMemo(() => transcriptItems(events), [events]);
  return (
    <>
      <ErrorText problem={problem} />
      {events.length === 0 ? <p class="empty">No events yet: they appear here as the run goes.</p> : null}
      <ol class="transcript" aria-live="polite" aria-label="Transcript">
        {items.map((item) =>
          item.kind === 'tool' ? (
            <li key={item.id} class="event event-tool">
              <time dateTime={item.at}>{new Date(item.at).toLocaleTimeString()}</time>
              <ToolBlock call={item.call} result={item.result} />
            </li>
          ) : (
            <li key={item.id} class={`event event-${item.event.type}`}>
              <time dateTime={item.event.at}>{new Date(item.event.at).toLocaleTimeString()}</time>{' '}
              <span class="event-type">{item.event.type}</span> <EventText event={item.event} />
            </li>
          ),
        )}
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
