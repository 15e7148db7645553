import {
  type Attributes,
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { WebhookRecord } from '../control/records.js';
import type { Instruments } from './instruments.js';
import { ATTR, UNLOGGED_LABELS } from './names.js';

/** What the ingress tells telemetry about one delivery as it goes (ingress/pipeline.ts). */
export interface DeliveryObservation {
  webhook(webhook: WebhookRecord): void;
  /** The delivery-log label of an entry written. */
  label(label: string): void;
  /** A 429: nothing written. */
  refused(reason: 'rate_limit' | 'auth_budget'): void;
  /** Accepted or Duplicate: the delivery's ID (its runs are made after the answer, see `evaluated`). */
  accepted(label: string, deliveryId: string): void;
}

export interface IngressTelemetry {
  delivery(request: Request, deliver: (seen: DeliveryObservation) => Promise<Response>): Promise<Response>;
  /**
   * A delivery evaluated in this process, and the runs it started (ingress/evaluation/): a
   * `webhook evaluation` span linked to the delivery's span when this process served it.
   */
  evaluated(deliveryId: string, runIds: readonly string[]): void;
}

/** Web `Headers` for the W3C trace-context propagator. */
const headerGetter = {
  get: (headers: Headers, key: string) => headers.get(key) ?? undefined,
  keys: (headers: Headers) => [...headers.keys()],
};

/** The caller's trace: the host's active span (its HTTP instrumentation), else a `traceparent` header. */
export function parentContext(request: Request): Context {
  const active = context.active();
  return trace.getSpan(active) ? active : propagation.extract(ROOT_CONTEXT, request.headers, headerGetter);
}

const schemeOf = (webhook: WebhookRecord) =>
  webhook.authMode === 'signature' ? (webhook.signatureScheme ?? 'signature') : webhook.authMode;

/**
 * One span per delivery (`webhook delivery`) and the `agentrun.deliveries` and
 * `agentrun.ingress.refusals` counts. The span context of each accepted delivery is remembered
 * under its ID (`startedBy`), so its evaluation and the execution of a run it started link back to it.
 */
export function ingressTelemetry(
  instruments: Instruments | undefined,
  tracer: Tracer | undefined,
  startedBy: Map<string, SpanContext>,
): IngressTelemetry {
  return {
    async delivery(request, deliver) {
      const span = tracer?.startSpan('webhook delivery', { kind: SpanKind.SERVER }, parentContext(request));
      let scheme = 'unknown';
      let label: string | undefined;
      const seen: DeliveryObservation = {
        webhook(webhook) {
          scheme = schemeOf(webhook);
          span?.setAttributes({ [ATTR.webhookUid]: webhook.uid, [ATTR.scheme]: scheme });
        },
        label(value) {
          label = value;
        },
        refused(reason) {
          label = UNLOGGED_LABELS.refused;
          instruments?.refusals.add(1, { [ATTR.reason]: reason, [ATTR.scheme]: scheme });
          span?.setAttribute(ATTR.reason, reason);
        },
        accepted(value, deliveryId) {
          label = value;
          if (!span) return;
          span.setAttribute(ATTR.deliveryId, deliveryId);
          if (value === 'Accepted') {
            if (startedBy.size >= 10_000) startedBy.clear();
            startedBy.set(deliveryId, span.spanContext());
          }
        },
      };
      try {
        const response = await deliver(seen);
        const final = label ?? (response.status === 404 ? UNLOGGED_LABELS.notFound : UNLOGGED_LABELS.unreadable);
        instruments?.deliveries.add(1, { [ATTR.label]: final, [ATTR.scheme]: scheme });
        span?.setAttributes({ [ATTR.label]: final, 'http.response.status_code': response.status } satisfies Attributes);
        return response;
      } catch (error) {
        instruments?.deliveries.add(1, { [ATTR.label]: 'Error', [ATTR.scheme]: scheme });
        span?.recordException(error as Error);
        span?.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span?.end();
      }
    },
    evaluated(deliveryId, runIds) {
      if (!tracer) return;
      const accepted = startedBy.get(deliveryId);
      // Its own trace, linked to the delivery's span (the answer has gone; the span has ended).
      const span = tracer.startSpan('webhook evaluation', {
        kind: SpanKind.INTERNAL,
        root: true,
        links: accepted ? [{ context: accepted }] : [],
        attributes: { [ATTR.deliveryId]: deliveryId, [ATTR.runIds]: [...runIds] },
      });
      // A delivery that started nothing is done with: no run's execution will look it up.
      if (runIds.length === 0) startedBy.delete(deliveryId);
      span.end();
    },
  };
}
