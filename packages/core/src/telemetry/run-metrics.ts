import type { Attributes, Meter } from '@opentelemetry/api';
import type { AgentRunEvents } from '../events.js';
import { isTerminal } from '../run/state-machine.js';
import type { Store } from '../store/store.js';
import type { Clock } from '../util/clock.js';
import type { Instruments } from './instruments.js';
import { ATTR, METRICS } from './names.js';

const seconds = (from: string, to: string) => Math.max(0, (Date.parse(to) - Date.parse(from)) / 1000);

/**
 * Runs by state and source, and run durations, from the run events of this process (events.ts):
 * each process counts the changes it makes, so summing over processes counts each change once.
 */
export function recordRunEvents(events: AgentRunEvents, instruments: Instruments): void {
  events.on('run.created', ({ run }) => {
    instruments.runs.add(1, { [ATTR.runState]: run.state, [ATTR.runSource]: run.source });
  });
  events.on('run.state_changed', ({ run, to }) => {
    const attributes: Attributes = { [ATTR.runState]: to, [ATTR.runSource]: run.source };
    instruments.runs.add(1, attributes);
    if (isTerminal(to)) instruments.runDuration.record(seconds(run.created_at, run.updated_at), attributes);
  });
}

/**
 * Queue depth and the oldest queued run's age, read from the store when the host's reader
 * collects (every 60 s by default for a periodic reader; at each scrape for Prometheus), never
 * per request. Stores without `runs.queueStats` report neither.
 */
export function observeQueue(meter: Meter, store: Store, clock: Clock, onError: (error: unknown) => void): void {
  const queueStats = store.runs.queueStats?.bind(store.runs);
  if (!queueStats) return;
  const depth = meter.createObservableGauge(METRICS.queueDepth.name, {
    unit: METRICS.queueDepth.unit,
    description: METRICS.queueDepth.description,
  });
  const age = meter.createObservableGauge(METRICS.queueAge.name, {
    unit: METRICS.queueAge.unit,
    description: METRICS.queueAge.description,
  });
  meter.addBatchObservableCallback(
    async (result) => {
      try {
        const stats = await queueStats();
        result.observe(depth, stats.depth);
        result.observe(age, stats.oldestCreatedAt === null ? 0 : Math.max(0, (clock.now() - Date.parse(stats.oldestCreatedAt)) / 1000));
      } catch (error) {
        // A store outage must not fail the host's whole collection; the gauges skip this one.
        onError(error);
      }
    },
    [depth, age],
  );
}
