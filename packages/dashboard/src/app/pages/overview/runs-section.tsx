import { RUN_STATES } from '@agentrun/client';
import type { RunStats } from '@agentrun/core/api';
import { Link } from '../../router.js';
import { RANGE_WORDS } from './amounts.js';
import { STATE_COLOURS } from './colours.js';
import { StackedChart } from './stacked-chart.js';

/** Runs created in each bucket, stacked by the state each is in now: a live run moves between bands. */
export function RunsByState({ stats }: { stats: RunStats }) {
  const series = RUN_STATES.map((state) => ({ label: state, colour: STATE_COLOURS[state], values: stats.by_state[state] }));
  const none = series.every((s) => s.values.every((v) => v === 0));
  return (
    <>
      <StackedChart id="runs-by-state" title="Runs by state" buckets={stats.buckets} stepSeconds={stats.step_seconds} series={series} />
      {none ? (
        <p class="empty">
          No runs in {RANGE_WORDS[stats.range]}: start one on the <Link to="/runs">Runs</Link> page, with <code>agentrun run</code>, or with{' '}
          <code>POST /api/v1/agent/runs</code>.
        </p>
      ) : null}
    </>
  );
}
