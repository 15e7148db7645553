import type { QueueStats } from '@agentrun/core/api';
import { formatAge } from './amounts.js';

/** The queue now: how many wait and since when, how many run, and the waiting by worker host. */
export function QueueNow({ stats, nowMs }: { stats: QueueStats; nowMs: number }) {
  return (
    <>
      <dl class="numbers">
        <div>
          <dt>Queued</dt>
          <dd data-testid="queued">{stats.queued}</dd>
        </div>
        <div>
          <dt>Oldest waiting</dt>
          <dd>{stats.oldest_queued_at ? formatAge(stats.oldest_queued_at, nowMs) : '—'}</dd>
        </div>
        <div>
          <dt>Running</dt>
          <dd>{stats.running}</dd>
        </div>
      </dl>
      {stats.by_host.length > 0 ? (
        <table class="list">
          <caption>Queued by worker host</caption>
          <thead>
            <tr>
              <th scope="col">Worker host</th>
              <th scope="col">Queued</th>
              <th scope="col">Oldest waiting</th>
            </tr>
          </thead>
          <tbody>
            {stats.by_host.map((h) => (
              <tr key={h.worker_host ?? ''}>
                <th scope="row">{h.worker_host ?? 'any (unrouted)'}</th>
                <td>{h.queued}</td>
                <td>{h.oldest_queued_at ? formatAge(h.oldest_queued_at, nowMs) : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="empty">Nothing waits: every run has a worker.</p>
      )}
    </>
  );
}
