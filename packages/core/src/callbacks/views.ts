import type * as v from 'valibot';
import type { CallbackDeliveryWithAttempts, CallbackEndpointRecord } from './records.js';
import type { CallbackDeliveryViewSchema, CallbackViewSchema } from './schemas.js';

/** The API's view of an endpoint: never its secret. */
export const callbackView = (e: CallbackEndpointRecord): v.InferOutput<typeof CallbackViewSchema> => ({
  id: e.id,
  url: e.url,
  factory_uid: e.factoryUid,
  event_types: [...e.eventTypes],
  description: e.description,
  enabled: e.enabled,
  disabled_reason: e.disabledReason,
  failing_since: e.failingSince,
  created_at: e.createdAt,
  updated_at: e.updatedAt,
});

export const callbackDeliveryView = (d: CallbackDeliveryWithAttempts): v.InferOutput<typeof CallbackDeliveryViewSchema> => ({
  id: d.id,
  event_type: d.eventType,
  run_id: d.runId,
  from: d.fromState,
  to: d.toState,
  status_message: d.statusMessage,
  occurred_at: d.occurredAt,
  artifact_uid: d.artifact?.uid ?? null,
  status: d.status,
  attempts: d.attemptLog.map((a) => ({
    attempt: a.attempt,
    at: a.at,
    status_code: a.statusCode,
    duration_ms: a.durationMs,
    error: a.error,
    ok: a.ok,
  })),
  next_attempt_at: d.nextAttemptAt,
});
