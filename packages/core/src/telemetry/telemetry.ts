import type { SpanContext } from '@opentelemetry/api';
import type { AgentRunEvents } from '../events.js';
import type { Store } from '../store/store.js';
import type { Clock } from '../util/clock.js';
import { type IngressTelemetry, ingressTelemetry } from './delivery-span.js';
import { type WorkerTelemetry, workerTelemetry } from './execution-span.js';
import { instrumentStore } from './instrumented-store.js';
import { createInstruments } from './instruments.js';
import { resolveProviders, type TelemetryOptions } from './providers.js';
import { type RequestTelemetry, requestTelemetry } from './request-span.js';
import { observeQueue, recordRunEvents } from './run-metrics.js';

/** The hooks each part receives; each `undefined` when nothing would record it. */
export interface Telemetry {
  store: Store;
  request: RequestTelemetry | undefined;
  ingress: IngressTelemetry | undefined;
  worker: WorkerTelemetry | undefined;
}

/**
 * OpenTelemetry metrics and spans for one agentrun (docs/operations.md, "Metrics and traces"),
 * on `@opentelemetry/api` alone: the host's SDK records them. Without one, every hook is
 * `undefined` and the store is the one given, so the parts call nothing.
 */
export function createTelemetry(input: {
  options: TelemetryOptions | false | undefined;
  store: Store;
  events: AgentRunEvents;
  clock: Clock;
  onError: (error: unknown) => void;
}): Telemetry {
  const { meter, tracer } = resolveProviders(input.options);
  if (!meter && !tracer) return { store: input.store, request: undefined, ingress: undefined, worker: undefined };
  const instruments = meter ? createInstruments(meter) : undefined;
  if (meter && instruments) {
    recordRunEvents(input.events, instruments);
    observeQueue(meter, input.store, input.clock, input.onError);
  }
  // Deliveries that started runs, for the executions' links (bounded: see delivery-span.ts).
  const startedBy = new Map<string, SpanContext>();
  return {
    store: instruments ? instrumentStore(input.store, instruments) : input.store,
    request: tracer ? requestTelemetry(tracer) : undefined,
    ingress: ingressTelemetry(instruments, tracer, startedBy),
    worker: workerTelemetry(instruments, tracer, startedBy, input.clock),
  };
}
