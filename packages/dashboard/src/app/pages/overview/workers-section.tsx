import type { ResponseOf } from '@agentrun/client';
import { Link } from '../../router.js';
import { ChartFrame } from './chart-frame.js';

type Workers = ResponseOf<'listWorkers'>['workers'];

/** Each live worker's load: the runs it holds against its capacity (GET /api/v1/workers). */
export function WorkerLoad({ workers }: { workers: Workers }) {
  if (workers.length === 0) {
    return (
      <p class="empty">
        No live worker: queued runs wait. Start one with <code>npm start</code>, or <code>npm start -- worker</code> on a worker host.
      </p>
    );
  }
  return (
    <>
      <ChartFrame
        id="worker-load"
        title="Worker load"
        head={['Worker', 'Host', 'Runs held', 'Capacity']}
        rows={workers.map((w) => [w.id, w.host, w.runs_held, w.capacity])}
      >
        <ul class="bars">
          {workers.map((w) => (
            <li key={w.id}>
              <span class="bar-key">
                <code>{w.host}</code> <span class="hint">{w.id.slice(0, 8)}</span>
              </span>
              <span class="bar-track">
                <span class="bar bar-load" style={{ width: `${(100 * Math.min(w.runs_held, w.capacity)) / Math.max(1, w.capacity)}%` }} />
              </span>
              <span class="bar-value">
                {w.runs_held} of {w.capacity}
              </span>
            </li>
          ))}
        </ul>
      </ChartFrame>
      <Link to="/workers">All about the workers</Link>
    </>
  );
}
