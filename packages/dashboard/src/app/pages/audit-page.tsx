import { AUDIT_EVENT_KINDS, type QueryOf, type ResponseOf } from '@agentrun/client';
import { useClient } from '../api-context.js';
import { ErrorText } from '../components/error-text.js';
import { formatTime } from '../format.js';
import { useRouter } from '../router.js';
import { useLoad } from '../use-load.js';

type AuditEvent = ResponseOf<'listAuditEvents'>['events'][number];

const TEXT_FILTERS = [
  ['actor', 'Actor (user or webhook ID)'],
  ['target', 'Target ID'],
  ['since', 'Since (RFC 3339)'],
  ['until', 'Until (RFC 3339)'],
] as const;

/** The page's URL as the API's query: kinds repeated, the rest once. */
function queryFrom(search: URLSearchParams): QueryOf<'listAuditEvents'> {
  const query: Record<string, unknown> = { limit: 50 };
  const kinds = search.getAll('kind');
  if (kinds.length > 0) query.kind = kinds;
  for (const name of ['actor', 'target', 'since', 'until', 'cursor']) {
    const value = search.get(name);
    if (value) query[name] = value;
  }
  return query as QueryOf<'listAuditEvents'>;
}

const detailText = (detail: AuditEvent['detail']) =>
  Object.entries(detail)
    .map(([k, v]) => `${k}: ${v === null ? '—' : String(v)}`)
    .join(', ');

/**
 * The team's audit log (docs/dashboard.md; docs/management-api.md, "The audit log"): who changed
 * what and when, and what the ingress answered, newest first. Filters live in the page's URL.
 */
export function AuditPage() {
  const client = useClient();
  const { query: search, navigate } = useRouter();
  const key = search.toString();
  const events = useLoad(() => client.audit.listPage(queryFrom(search)), [key]);
  const go = (next: URLSearchParams) => navigate(`/audit${next.toString() ? `?${next}` : ''}`);
  const hasFilters = [...search.keys()].some((k) => k !== 'cursor');
  return (
    <>
      <h1 tabIndex={-1}>Audit log</h1>
      <form
        class="filters"
        aria-label="Filter the audit log"
        onSubmit={(event) => {
          event.preventDefault();
          const next = new URLSearchParams();
          for (const [name, value] of new FormData(event.currentTarget)) {
            if (typeof value === 'string' && value.trim() !== '') next.append(name, value.trim());
          }
          go(next);
        }}
      >
        <fieldset>
          <legend>Kind</legend>
          {AUDIT_EVENT_KINDS.map((kind) => (
            <label key={kind} class="check">
              <input type="checkbox" name="kind" value={kind} checked={search.getAll('kind').includes(kind)} /> {kind}
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
        </div>
        <button type="submit">Apply filters</button>
      </form>
      <ErrorText problem={events.problem} />
      {events.loading && !events.data ? <p role="status">Loading the audit log…</p> : null}
      {events.data && events.data.events.length === 0 ? (
        <p class="empty">
          {hasFilters
            ? 'No event matches these filters. Clear them to see every event.'
            : 'Nothing recorded yet. Changes to webhooks, automations, secrets and definitions, and every delivery, show up here.'}
        </p>
      ) : null}
      {events.data && events.data.events.length > 0 ? (
        <table class="list">
          <caption class="visually-hidden">Audit events, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Kind</th>
              <th scope="col">Actor</th>
              <th scope="col">Target</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {events.data.events.map((e) => (
              <tr key={e.id}>
                <td>{formatTime(e.at)}</td>
                <td>
                  <code>{e.kind}</code>
                </td>
                <td>
                  {e.actor.type} <code>{e.actor.id}</code>
                </td>
                <td>
                  {e.target.type} <code>{e.target.id}</code>
                </td>
                <td>{detailText(e.detail)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <nav class="pager" aria-label="Pages of the audit log">
        {search.get('cursor') ? (
          <button
            type="button"
            onClick={() => {
              const next = new URLSearchParams(search);
              next.delete('cursor');
              go(next);
            }}
          >
            Newest
          </button>
        ) : null}
        {events.data?.page_info.has_next_page && events.data.page_info.next_cursor ? (
          <button
            type="button"
            onClick={() => {
              const next = new URLSearchParams(search);
              next.set('cursor', events.data!.page_info.next_cursor!);
              go(next);
            }}
          >
            Older events
          </button>
        ) : null}
        <button type="button" onClick={events.reload}>
          Refresh
        </button>
      </nav>
    </>
  );
}
