import type { CallbackArtifact, CallbackDeliveryRecord } from './records.js';

/**
 * The body of a callback (docs/callbacks.md, "Events"): the Standard Webhooks shape
 * `{ type, timestamp, data }`, with a slim view of the run (a receiver that needs the whole
 * `RunItem` reads `GET /api/v1/agent/runs/{run_id}`). Rendered at each attempt from the outbox
 * row, so every store keeps facts, not JSON, and every attempt sends the same bytes.
 */
export interface CallbackMessage {
  type: CallbackDeliveryRecord['eventType'];
  timestamp: string;
  data: {
    run_id: string;
    factory_uid: string | null;
    from: CallbackDeliveryRecord['fromState'];
    to: CallbackDeliveryRecord['toState'];
    state: CallbackDeliveryRecord['toState'];
    status_message: CallbackDeliveryRecord['statusMessage'];
    occurred_at: string;
    /** Only in `run.artifact_added`: the artifact as the run's `artifacts` shows it, with its UID (no bytes, no URL). */
    artifact?: {
      artifact_uid: string;
      artifact_type: CallbackArtifact['artifact_type'];
      created_at: string;
      data: CallbackArtifact['data'];
    };
  };
}

export const callbackMessage = (d: CallbackDeliveryRecord): CallbackMessage => ({
  type: d.eventType,
  timestamp: d.occurredAt,
  data: {
    run_id: d.runId,
    factory_uid: d.factoryUid,
    from: d.fromState,
    to: d.toState,
    state: d.toState,
    status_message: d.statusMessage,
    occurred_at: d.occurredAt,
    ...(d.artifact
      ? {
          artifact: {
            artifact_uid: d.artifact.uid,
            artifact_type: d.artifact.artifact_type,
            created_at: d.artifact.created_at,
            data: d.artifact.data,
          },
        }
      : {}),
  },
});

export const callbackBody = (d: CallbackDeliveryRecord): string => JSON.stringify(callbackMessage(d));
