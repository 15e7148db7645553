import { type Link, type SpanContext, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import type { ExecutionOutcome } from '../executor/executor.js';
import type { RunRecord } from '../run/record.js';
import type { Instruments } from './instruments.js';
import { ATTR } from './names.js';

/** The worker's hooks (worker/worker.ts). */
export interface WorkerTelemetry {
  /** A run just claimed: its pickup latency, on its first claim. */
  claimed(run: RunRecord): void;
  /** One execution of a run, in a span. */
  execution(run: RunRecord, execute: () => Promise<ExecutionOutcome>): Promise<ExecutionOutcome>;
}

/**
 * Pickup latency (creation to first claim: a retry or a follow-up re-queues a run whose creation
 * is older than its wait) and a span per execution (`run execution`). A run a delivery started
 * links to that delivery's span when the delivery was served by this process (`startedBy`); in
 * every case the span carries the delivery ID, so a trace backend can join them.
 */
export function workerTelemetry(
  instruments: Instruments | undefined,
  tracer: Tracer | undefined,
  startedBy: Map<string, SpanContext>,
  clock: { now(): number },
): WorkerTelemetry {
  return {
    claimed(run) {
      if (!instruments || run.attempts !== 1) return;
      const waited = Math.max(0, (clock.now() - Date.parse(run.createdAt)) / 1000);
      instruments.pickupLatency.record(waited, { [ATTR.runSource]: run.source });
    },
    async execution(run, execute) {
      if (!tracer) return execute();
      const deliveryId = run.trigger?.delivery_id;
      const delivery = deliveryId === undefined ? undefined : startedBy.get(deliveryId);
      const links: Link[] = delivery ? [{ context: delivery }] : [];
      const span = tracer.startSpan('run execution', {
        kind: SpanKind.CONSUMER,
        links,
        attributes: {
          [ATTR.runId]: run.id,
          [ATTR.runSource]: run.source,
          [ATTR.attempt]: run.attempts,
          ...(deliveryId !== undefined ? { [ATTR.deliveryId]: deliveryId } : {}),
        },
      });
      try {
        const outcome = await execute();
        span.setAttribute(ATTR.outcome, outcome.status);
        return outcome;
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  };
}
