import { RUN_DURATION_GROUPINGS, type RunDurationGrouping } from '@agentrun/client';
import type { RunDurationStats } from '@agentrun/core/api';
import { formatMs, RANGE_WORDS } from './amounts.js';
import { ChartFrame } from './chart-frame.js';
import { Segmented } from './segmented.js';

const GROUP_WORDS: Record<RunDurationGrouping, string> = { harness: 'harness', name: 'config name' };

/**
 * Run durations, p50 and p95 per harness or config name, as bars (plain HTML: a handful of
 * groups needs no canvas), with the switch between the two groupings.
 */
export function RunDurations({
  stats,
  by,
  onBy,
}: {
  stats: RunDurationStats;
  by: RunDurationGrouping;
  onBy: (by: RunDurationGrouping) => void;
}) {
  const groups = stats.by === by ? stats.groups : [];
  const longest = Math.max(1, ...groups.map((g) => g.p95_ms));
  const keyWord = (key: string) => (key === '' ? '(no name)' : key);
  return (
    <>
      <Segmented
        label="Group durations by"
        options={RUN_DURATION_GROUPINGS.map((b) => ({ value: b, text: `By ${GROUP_WORDS[b]}` }))}
        value={by}
        onChange={onBy}
      />
      <ChartFrame
        id="run-durations"
        title={`Run duration by ${GROUP_WORDS[by]}`}
        head={[GROUP_WORDS[by], 'Runs', 'p50', 'p95']}
        rows={groups.map((g) => [keyWord(g.key), g.runs, formatMs(g.p50_ms), formatMs(g.p95_ms)])}
      >
        <ul class="bars">
          {groups.map((g) => (
            <li key={g.key}>
              <span class="bar-key">
                {keyWord(g.key)} <span class="hint">({g.runs})</span>
              </span>
              <span class="bar-track">
                <span class="bar bar-p95" style={{ width: `${(100 * g.p95_ms) / longest}%` }} />
                <span class="bar bar-p50" style={{ width: `${(100 * g.p50_ms) / longest}%` }} />
              </span>
              <span class="bar-value">
                {formatMs(g.p50_ms)} · {formatMs(g.p95_ms)}
              </span>
            </li>
          ))}
        </ul>
        {groups.length > 0 ? <p class="hint">Darker: p50 (half the runs took less). Lighter: p95.</p> : null}
      </ChartFrame>
      {groups.length === 0 ? (
        <p class="empty">No run ended in {RANGE_WORDS[stats.range]}: a run's duration counts once it has started and ended.</p>
      ) : null}
    </>
  );
}
