import type { QueryOf } from '@agentrun/client';
import { useState } from 'preact/hooks';
import { useClient } from '../api-context.js';
import { ErrorText } from '../components/error-text.js';
import { HarnessList } from '../components/harness-list.js';
import { StateBadge } from '../components/state-badge.js';
import { formatTime } from '../format.js';
import { describe, type Problem } from '../problems.js';
import { Link, useRouter } from '../router.js';
import { useLoad } from '../use-load.js';

/**
 * The runs (docs/run-api.md, "List runs"): the list API's filters kept in the page's URL (so a
 * filtered list can be shared and survives a reload), cursor pages, a badge per state; above
 * them, the agent CLIs the server runs.
 */

const STATES = ['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS', 'BLOCKED', 'SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'];
const TEXT_FILTERS = [
  ['q', 'Search title, prompt or skill'],
  ['source', 'Source'],
  ['creator', 'Creator UID'],
  ['name', 'Config name'],
  ['model_id', 'Model'],
  ['factory_uid', 'Factory UID'],
  ['schedule_id', 'Schedule ID'],
] as const;

type ListQuery = QueryOf<'listRuns'>;

function queryFrom(search: URLSearchParams): ListQuery {
  const query: Record<string, unknown> = {};
  const states = search.getAll('state');
  if (states.length > 0) query.state = states;
  for (const [name] of TEXT_FILTERS) {
    const value = search.get(name);
    if (value) query[name] = value;
  }
  for (const name of ['sort_by', 'sort_order', 'cursor', 'limit']) {
    const value = search.get(name);
    if (value) query[name] = value;
  }
  return query as ListQuery;
}

export function RunsPage() {
  const client = useClient();
  const { query: search, navigate } = useRouter();
  const query = queryFrom(search);
  const key = search.toString();
  const runs = useLoad(() => client.runs.listPage(query), [key]);
  // The cursors of the pages before this one, for "Previous page".
  const previous = search.getAll('prev');

  const go = (next: URLSearchParams) => navigate(`/runs${next.toString() ? `?${next}` : ''}`);
  const hasFilters = [...search.keys()].some((k) => k !== 'cursor' && k !== 'prev');

  return (
    <>
      <h1 tabIndex={-1}>Runs</h1>
      <HarnessList />
      <Filters search={search} onApply={go} />
      <StartRun onStarted={(runId) => navigate(`/runs/${encodeURIComponent(runId)}`)} />
      <ErrorText problem={runs.problem} />
      {runs.loading && !runs.data ? <p role="status">Loading runs…</p> : null}
      {runs.data && runs.data.runs.length === 0 ? (
        <p class="empty">
          {hasFilters
            ? 'No run matches these filters. Clear them to see every run.'
            : 'No runs yet. Start one above, with `agentrun run "…"`, or POST /api/v1/agent/run.'}
        </p>
      ) : null}
      {runs.data && runs.data.runs.length > 0 ? (
        <table class="list">
          <caption class="visually-hidden">Runs, {search.get('sort_by') ?? 'updated_at'} order</caption>
          <thead>
            <tr>
              <th scope="col">State</th>
              <th scope="col">Title</th>
              <th scope="col">Source</th>
              <th scope="col">Creator</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {runs.data.runs.map((run) => (
              <tr key={run.run_id}>
                <td>
                  <StateBadge state={run.state} />
                </td>
                <td>
                  <Link to={`/runs/${encodeURIComponent(run.run_id)}`}>{run.title || run.run_id}</Link>
                </td>
                <td>{run.source ?? '—'}</td>
                <td>{run.creator?.display_name ?? run.creator?.uid ?? '—'}</td>
                <td>{formatTime(run.updated_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <nav class="pager" aria-label="Pages of runs">
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
        {runs.data?.page_info.has_next_page && runs.data.page_info.next_cursor ? (
          <button
            type="button"
            onClick={() => {
              const next = new URLSearchParams(search);
              next.append('prev', search.get('cursor') ?? '');
              next.set('cursor', runs.data!.page_info.next_cursor!);
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

function Filters({ search, onApply }: { search: URLSearchParams; onApply: (next: URLSearchParams) => void }) {
  return (
    <form
      class="filters"
      aria-label="Filter runs"
      onSubmit={(event) => {
        event.preventDefault();
        const data = new FormData(event.currentTarget);
        const next = new URLSearchParams();
        for (const [name, value] of data) if (typeof value === 'string' && value.trim() !== '') next.append(name, value.trim());
        onApply(next);
      }}
    >
      <fieldset>
        <legend>State</legend>
        {STATES.map((state) => (
          <label key={state} class="check">
            <input type="checkbox" name="state" value={state} checked={search.getAll('state').includes(state)} /> {state}
          </label>
        ))}
      </fieldset>
      <div class="fields">
        {TEXT_FILTERS.map(([name, label]) => (
          <label key={name}>
            {label}
            <input name={name} value={search.get(name) ?? ''} />
          </label>
        ))}
        <label>
          Sort by
          <select name="sort_by" value={search.get('sort_by') ?? 'updated_at'}>
            <option value="updated_at">Updated</option>
            <option value="created_at">Created</option>
            <option value="title">Title</option>
            <option value="agent">Skill</option>
          </select>
        </label>
        <label>
          Order
          <select name="sort_order" value={search.get('sort_order') ?? 'desc'}>
            <option value="desc">Newest / Z first</option>
            <option value="asc">Oldest / A first</option>
          </select>
        </label>
        <label>
          Per page
          <input name="limit" inputMode="numeric" value={search.get('limit') ?? ''} placeholder="20" />
        </label>
      </div>
      <button type="submit">Apply filters</button>
    </form>
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
