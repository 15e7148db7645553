import type { CallbackStats } from '@agentrun/core/api';
import { formatTime } from '../../format.js';
import { Link } from '../../router.js';
import { RANGE_WORDS } from './amounts.js';

/** How many failing callbacks the overview lists; the Callbacks page has them all. */
const SHOWN = 5;

/** The callback endpoints that failed in the range, most failures first, each with its last error. */
export function FailingCallbacks({ stats }: { stats: CallbackStats }) {
  if (stats.endpoints.length === 0) {
    return (
      <p class="empty">
        No callback registered: register one on the <Link to="/callbacks">Callbacks</Link> page to hear when runs change state.
      </p>
    );
  }
  const failing = stats.endpoints.filter((e) => e.failed > 0);
  if (failing.length === 0) {
    return (
      <p class="empty">
        No callback failed in {RANGE_WORDS[stats.range]} ({stats.endpoints.length} registered: <Link to="/callbacks">Callbacks</Link>).
      </p>
    );
  }
  return (
    <>
      <table class="list">
        <caption class="visually-hidden">Failing callbacks</caption>
        <thead>
          <tr>
            <th scope="col">Endpoint</th>
            <th scope="col">Failed</th>
            <th scope="col">Delivered</th>
            <th scope="col">Last error</th>
          </tr>
        </thead>
        <tbody>
          {failing.slice(0, SHOWN).map((e) => (
            <tr key={e.endpoint_id}>
              <th scope="row" class="wrap">
                <Link to={`/callbacks/${encodeURIComponent(e.endpoint_id)}`}>{e.url}</Link>
              </th>
              <td class="bad">{e.failed}</td>
              <td>{e.delivered}</td>
              <td class="wrap">
                {e.last_error ?? '—'}
                {e.last_failure_at ? <span class="hint"> ({formatTime(e.last_failure_at)})</span> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {failing.length > SHOWN ? (
        <p class="hint">
          {failing.length - SHOWN} more on the <Link to="/callbacks">Callbacks</Link> page.
        </p>
      ) : null}
    </>
  );
}
