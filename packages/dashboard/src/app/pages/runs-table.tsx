import { type ResponseOf, TERMINAL_STATES } from '@agentrun/client';
import { CopyId } from '../components/copy-id.js';
import { StateBadge } from '../components/state-badge.js';
import { formatDuration, formatTime } from '../format.js';
import { Link } from '../router.js';
import { useNow } from '../use-now.js';

type Run = ResponseOf<'listRuns'>['runs'][number];

/**
 * One page of runs (docs/dashboard.md, "The runs list"): state, title, ID (short, copyable),
 * what started it, created, and how long it ran, counting live while it runs. A table on a wide
 * screen; on a narrow one each run is a block of labelled lines (styles.css, "Runs list").
 */
export function RunsTable({ runs, caption }: { runs: Run[]; caption: string }) {
  const running = runs.some(isRunning);
  const now = useNow(running);
  return (
    <table class="list runs-table">
      <caption class="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">State</th>
          <th scope="col">Title</th>
          <th scope="col">ID</th>
          <th scope="col">Started by</th>
          <th scope="col">Created</th>
          <th scope="col">Duration</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => (
          <tr key={run.run_id} data-run-id={run.run_id}>
            <td class="run-state">
              <StateBadge state={run.state} />
            </td>
            <td class="run-title">
              <Link to={`/runs/${encodeURIComponent(run.run_id)}`}>{run.title || run.run_id}</Link>
            </td>
            <td data-label="ID">
              <CopyId id={run.run_id} what="run ID" />
            </td>
            <td data-label="Started by" class="run-started-by">
              <StartedBy run={run} />
            </td>
            <td data-label="Created">
              <time dateTime={run.created_at}>{formatTime(run.created_at)}</time>
            </td>
            <td data-label="Duration" class="run-duration">
              {duration(run, now)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const isRunning = (run: Run): boolean => Boolean(run.started_at) && !TERMINAL_STATES.has(run.state);

/**
 * From its start to its end (a finished run's last update) or, while it runs, to now; a run not
 * yet started has none.
 */
function duration(run: Run, now: number): string {
  if (!run.started_at) return run.state === 'QUEUED' ? 'queued' : '—';
  const end = TERMINAL_STATES.has(run.state) ? Date.parse(run.updated_at) : now;
  return formatDuration(end - Date.parse(run.started_at));
}

/** The page of the webhook delivery that started a run. */
const deliveryPath = (t: NonNullable<Run['trigger']>): string =>
  `/factories/${encodeURIComponent(t.factory_uid)}/webhooks/${encodeURIComponent(t.webhook_uid)}/deliveries/${encodeURIComponent(t.delivery_id)}`;

/** The delivery or schedule that started a run, linked; else its source and creator. */
function StartedBy({ run }: { run: Run }) {
  if (run.trigger) {
    return (
      <Link to={deliveryPath(run.trigger)} class="started-by">
        Webhook delivery <code>{run.trigger.delivery_id.slice(0, 8)}</code>
      </Link>
    );
  }
  if (run.schedule) {
    return (
      // Schedules have no page of their own: the link lists the runs this schedule started.
      <Link to={`/runs?schedule_id=${encodeURIComponent(run.schedule.schedule_id)}`} class="started-by">
        Schedule {run.schedule.schedule_name}
      </Link>
    );
  }
  const who = run.creator?.display_name ?? run.creator?.uid;
  return (
    <>
      {run.source ?? '—'}
      {who ? ` · ${who}` : ''}
    </>
  );
}
