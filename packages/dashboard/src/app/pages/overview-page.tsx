import { STATS_RANGE_NAMES } from '@agentrun/client';
import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import { useClient } from '../api-context.js';
import { ErrorText } from '../components/error-text.js';
import type { Problem } from '../problems.js';
import { RANGE_WORDS } from './overview/amounts.js';
import { FailingCallbacks } from './overview/callbacks-section.js';
import { DeliveriesByWebhook } from './overview/deliveries-section.js';
import { RunDurations } from './overview/durations-section.js';
import { QueueNow } from './overview/queue-section.js';
import { overviewReads } from './overview/reads.js';
import { RunsByState } from './overview/runs-section.js';
import { Segmented } from './overview/segmented.js';
import { type Polled, usePoll } from './overview/use-poll.js';
import { useOverviewView } from './overview/view-hash.js';
import { WorkerLoad } from './overview/workers-section.js';

/** Marked once every read of the overview has answered, for the first-paint bench (bench/README.md, "dashboard"). */
const LOADED_MARK = 'agentrun:overview-loaded';

/**
 * The landing page (docs/dashboard.md, "Overview"): runs by state over time, run durations, the
 * deliveries per webhook, the queue, the workers' load and the failing callbacks, for the last
 * hour, day or week (kept in the URL's hash), read again every few seconds while the tab shows.
 * Every number comes from one aggregate read of the API per chart.
 */
export function OverviewPage() {
  const client = useClient();
  const reads = useMemo(() => overviewReads(client), [client]);
  const [view, setView] = useOverviewView();
  const runs = usePoll(() => reads.runs(view.range), [reads, view.range]);
  const durations = usePoll(() => reads.durations(view.range, view.by), [reads, view.range, view.by]);
  const deliveries = usePoll(() => reads.deliveries(view.range), [reads, view.range]);
  const queue = usePoll(() => reads.queue(), [reads]);
  const workers = usePoll(() => reads.workers(), [reads]);
  const callbacks = usePoll(() => reads.callbacks(view.range), [reads, view.range]);
  const all: Polled<unknown>[] = [runs, durations, deliveries, queue, workers, callbacks];
  const loaded = all.every((p) => p.data !== undefined || p.problem !== undefined);
  const marked = useRef(false);
  // Marked as the last answer reaches the page (a layout effect), not a frame later.
  useLayoutEffect(() => {
    if (loaded && !marked.current) {
      marked.current = true;
      performance.mark(LOADED_MARK);
    }
  }, [loaded]);
  // Each section built again only when its own read answers: the page renders once per answer,
  // and an unchanged section (the same element) is skipped.
  const runsChart = useMemo(() => (runs.data ? <RunsByState stats={runs.data} /> : null), [runs.data]);
  const durationsChart = useMemo(
    () => (durations.data ? <RunDurations stats={durations.data} by={view.by} onBy={(by) => setView({ by })} /> : null),
    [durations.data, view.by],
  );
  // The queue's ages count from when it was read, so they move with each read, not on their own.
  const queueNow = useMemo(() => (queue.data ? <QueueNow stats={queue.data} nowMs={Date.now()} /> : null), [queue.data]);
  const workerLoad = useMemo(() => (workers.data ? <WorkerLoad workers={workers.data.workers} /> : null), [workers.data]);
  const failingCallbacks = useMemo(() => (callbacks.data ? <FailingCallbacks stats={callbacks.data} /> : null), [callbacks.data]);
  const deliveryCharts = useMemo(() => (deliveries.data ? <DeliveriesByWebhook stats={deliveries.data} /> : null), [deliveries.data]);

  return (
    <>
      <h1 tabIndex={-1}>Overview</h1>
      <div class="overview-bar">
        <Segmented
          label="Time range"
          options={STATS_RANGE_NAMES.map((r) => ({ value: r, text: r }))}
          value={view.range}
          onChange={(range) => setView({ range })}
        />
        <p class="hint">Runs and deliveries of {RANGE_WORDS[view.range]}, read again every few seconds.</p>
      </div>
      <div class="overview" data-loaded={loaded ? 'true' : undefined}>
        <Section id="ov-runs" title="Runs" wide problem={runs.problem} loading={!runs.data}>
          {runsChart}
        </Section>
        <Section id="ov-durations" title="Run durations" problem={durations.problem} loading={!durations.data}>
          {durationsChart}
        </Section>
        <Section id="ov-queue" title="Queue" problem={queue.problem} loading={!queue.data}>
          {queueNow}
        </Section>
        <Section id="ov-workers" title="Workers" problem={workers.problem} loading={!workers.data}>
          {workerLoad}
        </Section>
        <Section id="ov-callbacks" title="Failing callbacks" problem={callbacks.problem} loading={!callbacks.data}>
          {failingCallbacks}
        </Section>
        <Section id="ov-deliveries" title="Webhook deliveries" wide problem={deliveries.problem} loading={!deliveries.data}>
          {deliveryCharts}
        </Section>
      </div>
    </>
  );
}

function Section({
  id,
  title,
  wide,
  problem,
  loading,
  children,
}: {
  id: string;
  title: string;
  wide?: boolean;
  problem: Problem | undefined;
  loading: boolean;
  children: ComponentChildren;
}) {
  return (
    <section class={wide ? 'card wide' : 'card'} aria-labelledby={id} aria-busy={loading && !problem}>
      <h2 id={id}>{title}</h2>
      <ErrorText problem={problem} />
      {loading && !problem ? <p role="status">Loading…</p> : null}
      {children}
    </section>
  );
}
