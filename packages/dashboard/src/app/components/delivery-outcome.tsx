import { Link } from '../router.js';

/** What the list and a delivery's page know of an entry to say what it started. */
interface Entry {
  delivery_id: string;
  status: string;
  run_ids: string[] | null;
}

/** How many run links the list shows before "and N more" (the delivery's page lists them all). */
const LISTED_RUNS = 3;

/** A run ID short enough for a row: the whole one is its link's accessible name. */
const shortId = (id: string) => (id.length > 10 ? `${id.slice(0, 8)}…` : id);

/**
 * What a delivery started, in a few words (docs/dashboard.md, "A delivery"): its runs as links,
 * "matched nothing" with the way to why, "evaluating…" until its evaluation completes; an entry
 * that was not accepted started nothing and is not evaluated.
 */
export function DeliveryOutcome({ entry, deliveryPath }: { entry: Entry; deliveryPath: string }) {
  if (entry.status !== 'Accepted') return <span class="hint">not evaluated</span>;
  if (entry.run_ids === null) return <span class="hint">evaluating…</span>;
  if (entry.run_ids.length === 0) {
    return (
      <span class="outcome">
        matched nothing{' '}
        <Link to={`${deliveryPath}#automations-heading`} label={`Why delivery ${entry.delivery_id} matched nothing`}>
          why?
        </Link>
      </span>
    );
  }
  const n = entry.run_ids.length;
  return (
    <span class="outcome">
      started {n} run{n === 1 ? '' : 's'}:{' '}
      {entry.run_ids.slice(0, LISTED_RUNS).map((id) => (
        <span key={id}>
          <Link to={`/runs/${encodeURIComponent(id)}`} label={`Run ${id}`}>
            <code>{shortId(id)}</code>
          </Link>{' '}
        </span>
      ))}
      {n > LISTED_RUNS ? <Link to={deliveryPath}>and {n - LISTED_RUNS} more</Link> : null}
    </span>
  );
}
