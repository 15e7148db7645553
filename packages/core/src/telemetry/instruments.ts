import type { Counter, Histogram, Meter } from '@opentelemetry/api';
import { METRICS } from './names.js';

/** The instruments, made once per agentrun (never per call). */
export interface Instruments {
  runs: Counter;
  runDuration: Histogram;
  pickupLatency: Histogram;
  deliveries: Counter;
  refusals: Counter;
  storeDuration: Histogram;
}

const SECONDS_BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];

export function createInstruments(meter: Meter): Instruments {
  const counter = (m: { name: string; unit: string; description: string }) =>
    meter.createCounter(m.name, { unit: m.unit, description: m.description });
  const histogram = (m: { name: string; unit: string; description: string }) =>
    meter.createHistogram(m.name, { unit: m.unit, description: m.description, advice: { explicitBucketBoundaries: SECONDS_BOUNDS } });
  return {
    runs: counter(METRICS.runs),
    runDuration: histogram(METRICS.runDuration),
    pickupLatency: histogram(METRICS.pickupLatency),
    deliveries: counter(METRICS.deliveries),
    refusals: counter(METRICS.refusals),
    storeDuration: histogram(METRICS.storeDuration),
  };
}
