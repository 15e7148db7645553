import { RUN_STATES } from '@agentrun/client';
import { useEffect, useState } from 'preact/hooks';
import { paramsOfSearch, parseRunSearch, printRunSearch, SEARCH_HELP, searchFromParams } from '../run-search.js';

/**
 * The runs list's filters (docs/dashboard.md, "Searching runs"): one search box for every filter
 * of `GET /agent/runs` but the states (run-search.ts has its syntax), and a state picker. Both
 * read and write the page's URL, which keeps the list API's own parameters, so a filtered list
 * can be shared, survives a reload, and a link such as `/runs?schedule_id=…` shows in the box.
 */
export function RunsSearch({ search, onApply }: { search: URLSearchParams; onApply: (next: URLSearchParams) => void }) {
  const shown = printRunSearch(searchFromParams(search));
  const [draft, setDraft] = useState(shown);
  const [error, setError] = useState<string | undefined>();
  // The URL changed (a link, Back, a state picked): the box shows it, dropping an unsent draft.
  useEffect(() => {
    setDraft(shown);
    setError(undefined);
  }, [shown]);
  const states = search.getAll('state');

  /** The URL for these filters and states, from the first page. */
  const withFilters = (params: [string, string][], picked: readonly string[]) => {
    const next = new URLSearchParams(params);
    for (const state of picked) next.append('state', state);
    return next;
  };

  return (
    <div class="runs-search">
      <form
        aria-label="Search runs"
        onSubmit={(event) => {
          event.preventDefault();
          const parsed = parseRunSearch(draft);
          if (parsed.error !== undefined) return setError(parsed.error);
          setError(undefined);
          onApply(withFilters(paramsOfSearch(parsed.search), states));
        }}
      >
        <label for="run-search">Search</label>
        <div class="runs-search-row">
          <input
            id="run-search"
            type="search"
            value={draft}
            placeholder="name:nightly source:webhook flaky test"
            autoComplete="off"
            spellcheck={false}
            aria-describedby={error ? 'run-search-error run-search-hint' : 'run-search-hint'}
            aria-invalid={error ? true : undefined}
            onInput={(e) => setDraft(e.currentTarget.value)}
          />
          <button type="submit">Search</button>
        </div>
        {error ? (
          <p class="error" role="alert" id="run-search-error">
            {error}
          </p>
        ) : null}
        <p class="hint" id="run-search-hint">
          Words search titles, prompts and skills; <code>key:value</code> filters (a value with spaces in "quotes").
        </p>
        <details class="search-help">
          <summary>Filters</summary>
          <dl>
            {SEARCH_HELP.map(({ key, help, values }) => (
              <div key={key}>
                <dt>
                  <code>{key}:</code>
                </dt>
                <dd>
                  {help}
                  {values ? `: ${values.join(', ')}` : ''}
                </dd>
              </div>
            ))}
          </dl>
        </details>
      </form>
      <details class="state-picker">
        <summary>States: {states.length === 0 ? 'all' : states.join(', ')}</summary>
        <fieldset>
          <legend class="visually-hidden">Show runs in these states</legend>
          {RUN_STATES.map((state) => (
            <label key={state} class="check">
              <input
                type="checkbox"
                checked={states.includes(state)}
                onChange={(e) => {
                  const picked = e.currentTarget.checked ? [...states, state] : states.filter((s) => s !== state);
                  // In core's order, whatever order they were picked in.
                  onApply(
                    withFilters(
                      paramsOfSearch(searchFromParams(search)),
                      RUN_STATES.filter((s) => picked.includes(s)),
                    ),
                  );
                }}
              />{' '}
              {state}
            </label>
          ))}
          {states.length > 0 ? (
            <button type="button" class="small" onClick={() => onApply(withFilters(paramsOfSearch(searchFromParams(search)), []))}>
              All states
            </button>
          ) : null}
        </fieldset>
      </details>
    </div>
  );
}
