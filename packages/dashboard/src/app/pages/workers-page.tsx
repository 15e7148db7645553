import { useClient } from '../api-context.js';
import { ErrorText } from '../components/error-text.js';
import { formatTime } from '../format.js';
import { Link } from '../router.js';
import { useLoad } from '../use-load.js';

/**
 * The live workers (docs/dashboard.md; docs/operations.md, "Worker hosts"): each one's host (what a
 * run's `config.worker_host` names to go there), whether it takes unrouted runs, the runs it holds
 * of its capacity, and links to those of the team. Read again with Refresh: it changes by itself.
 */
export function WorkersPage() {
  const client = useClient();
  const workers = useLoad(() => client.workers.list(), []);
  const list = workers.data?.workers;
  return (
    <>
      <h1 tabIndex={-1}>Workers</h1>
      <p>
        The workers heartbeating now. A run with <code>config.worker_host</code> goes only to the workers of that host; one without goes to
        any worker that takes unrouted runs.
      </p>
      <button type="button" onClick={() => workers.reload()}>
        Refresh
      </button>
      <ErrorText problem={workers.problem} />
      {workers.loading && !workers.data ? <p role="status">Loading the workers…</p> : null}
      {list && list.length === 0 ? (
        <p class="empty">No live worker: queued runs wait. Start one with npm start, or npm start -- worker on a worker host.</p>
      ) : null}
      {list && list.length > 0 ? (
        <table class="list">
          <caption class="visually-hidden">Live workers, by host</caption>
          <thead>
            <tr>
              <th scope="col">Host</th>
              <th scope="col">Worker</th>
              <th scope="col">Unrouted runs</th>
              <th scope="col">Runs held</th>
              <th scope="col">Executor</th>
              <th scope="col">Version</th>
              <th scope="col">Last seen</th>
              <th scope="col">Your runs</th>
            </tr>
          </thead>
          <tbody>
            {list.map((w) => (
              <tr key={w.id}>
                <td>
                  <code>{w.host}</code>
                </td>
                <td>
                  <code>{w.id}</code>
                </td>
                <td>{w.unrouted ? 'takes them' : 'only its host’s'}</td>
                <td>
                  {w.runs_held} of {w.capacity}
                </td>
                <td>{w.executor}</td>
                <td>{w.version}</td>
                <td>{formatTime(w.last_seen_at)}</td>
                <td>
                  {w.runs.length === 0
                    ? '—'
                    : w.runs.map((id) => (
                        <span key={id}>
                          <Link to={`/runs/${encodeURIComponent(id)}`}>{id}</Link>{' '}
                        </span>
                      ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}
