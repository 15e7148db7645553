import type { QueryOf } from '@agentrun/client';
import { useRef, useState } from 'preact/hooks';
import { useClient } from '../api-context.js';
import { ErrorText } from '../components/error-text.js';
import { HarnessList } from '../components/harness-list.js';
import { describe, type Problem } from '../problems.js';
import { useRouter } from '../router.js';
import { useLoad } from '../use-load.js';
import { usePoll } from '../use-poll.js';
import { RunsSearch } from './runs-search.js';
import { RunsTable } from './runs-table.js';

/**
 * The runs (docs/run-api.md, "List runs"; docs/dashboard.md, "The runs list"): the list API's
 * filters kept in the page's URL (so a filtered list can be shared and survives a reload) behind
 * one search box and a state picker, cursor pages, and the first page kept current by asking
 * again every few seconds while the tab is shown; above them, the agent CLIs the server runs.
 */

/** How often the first page asks again: new runs and state changes show within this. */
const REFRESH_MS = 3000;

/** The URL parameters the list API takes (the others are the page's own: `prev`). */
function queryFrom(search: URLSearchParams): QueryOf<'listRuns'> {
  const query: Record<string, unknown> = {};
  for (const [name, value] of search) {
    if (name === 'prev' || value === '') continue;
    if (name === 'state') query.state = [...((query.state as string[] | undefined) ?? []), value];
    else query[name] = value;
  }
  return query as QueryOf<'listRuns'>;
}

export function RunsPage() {
  const client = useClient();
  const { query: search, navigate } = useRouter();
  const key = search.toString();
  const runs = useLoad(() => client.runs.listPage(queryFrom(search)), [key]);
  // The cursors of the pages before this one, for "Previous page".
  const previous = search.getAll('prev');
  const firstPage = !search.has('cursor');
  // Only the first page follows the list live: a later one would shift under the reader.
  usePoll(runs.reload, REFRESH_MS, firstPage && !runs.loading);
  // A refresh that fails leaves the rows of the same query in place (its error shown above them),
  // so a passing network hiccup does not empty the list under the reader.
  const last = useRef<{ key: string; page: NonNullable<typeof runs.data> } | undefined>(undefined);
  if (runs.data && !runs.loading) last.current = { key, page: runs.data };
  const page = runs.data ?? (last.current?.key === key ? last.current.page : undefined);

  const go = (next: URLSearchParams) => navigate(`/runs${next.toString() ? `?${next}` : ''}`);
  const hasFilters = [...search.keys()].some((k) => k !== 'cursor' && k !== 'prev');

  return (
    <>
      <h1 tabIndex={-1}>Runs</h1>
      <HarnessList />
      <RunsSearch search={search} onApply={go} />
      <StartRun onStarted={(runId) => navigate(`/runs/${encodeURIComponent(runId)}`)} />
      <ErrorText problem={runs.problem} />
      {runs.loading && !page ? <p role="status">Loading runs…</p> : null}
      {page && page.runs.length === 0 ? (
        <p class="empty">
          {hasFilters
            ? 'No run matches these filters. Clear them to see every run.'
            : 'No runs yet. Start one above, with `agentrun run "…"`, or POST /api/v1/agent/run.'}
        </p>
      ) : null}
      {page && page.runs.length > 0 ? (
        <RunsTable runs={page.runs} caption={`Runs, ${search.get('sort_by') ?? 'updated_at'} order`} />
      ) : null}
      <p class="hint">
        {firstPage
          ? 'This page updates itself: new runs and state changes show within seconds.'
          : 'Updates pause on later pages: go back to the first page to follow the list live.'}
      </p>
      <nav class="pager" aria-label="Pages of runs">
        {hasFilters ? (
          <button type="button" onClick={() => go(new URLSearchParams())}>
            Clear filters
          </button>
        ) : null}
        {previous.length > 0 ? (
          <button
            type="button"
            onClick={() => {
              const next = new URLSearchParams(search);
              const back = previous.slice(0, -1);
              next.delete('prev');
              for (const c of back) next.append('prev', c);
              const cursor = previous[previous.length - 1]!;
              if (cursor === '') next.delete('cursor');
              else next.set('cursor', cursor);
              go(next);
            }}
          >
            Previous page
          </button>
        ) : null}
        {page?.page_info.has_next_page && page.page_info.next_cursor ? (
          <button
            type="button"
            onClick={() => {
              const next = new URLSearchParams(search);
              next.append('prev', search.get('cursor') ?? '');
              next.set('cursor', page.page_info.next_cursor!);
              go(next);
            }}
          >
            Next page
          </button>
        ) : null}
        <button type="button" onClick={runs.reload}>
          Refresh
        </button>
      </nav>
    </>
  );
}

function StartRun({ onStarted }: { onStarted: (runId: string) => void }) {
  const client = useClient();
  const [prompt, setPrompt] = useState('');
  const [problem, setProblem] = useState<Problem | undefined>();
  return (
    <details class="panel">
      <summary>Start a run</summary>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          try {
            const run = await client.runs.create({ prompt });
            onStarted(run.run_id);
          } catch (error) {
            setProblem(describe(error));
          }
        }}
      >
        <label for="new-run-prompt">Prompt</label>
        <textarea id="new-run-prompt" rows={3} value={prompt} onInput={(e) => setPrompt(e.currentTarget.value)} />
        <ErrorText problem={problem} />
        <button type="submit">Start run</button>
      </form>
    </details>
  );
}
