import type { ArtifactItem } from '../artifacts/model.js';
import type { RunStatusMessage } from '../models/run.js';
import type { RunState } from '../models/run-state.js';

/**
 * Run-state callbacks as stores keep them (docs/callbacks.md): endpoints a team registers, the
 * outbox of deliveries (one per event and endpoint, written with the run's state change) and the
 * log of each delivery's attempts. Timestamps are RFC 3339 UTC strings with milliseconds.
 */

/** The events a callback endpoint can ask for (docs/callbacks.md, "Events"). */
export const CALLBACK_EVENT_TYPES = ['run.created', 'run.state_changed', 'run.artifact_added'] as const;
export type CallbackEventType = (typeof CALLBACK_EVENT_TYPES)[number];

/** The artifact a `run.artifact_added` event carries: its UID and what the run's `artifacts` shows (no bytes, no URL). */
export type CallbackArtifact = ArtifactItem & { uid: string };

/** Why an endpoint is disabled: by a caller, or by the failing rule (policy.ts `shouldDisable`). */
export type CallbackDisabledReason = 'manual' | 'failing';

export interface CallbackEndpointRecord {
  id: string;
  teamUid: string;
  /** `null`: every run of the team; else only that factory's runs. */
  factoryUid: string | null;
  url: string;
  description: string;
  /** Empty: every event type. */
  eventTypes: CallbackEventType[];
  /** The `whsec_…` signing secret, sealed (secret-cipher.ts, slot `callbackSecretSlot`). */
  secretCiphertext: string;
  enabled: boolean;
  disabledReason: CallbackDisabledReason | null;
  /** The first failed attempt since the last success; `null` while the endpoint answers. */
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
}

export type CallbackDeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** One event for one endpoint: the outbox row, and the delivery's state. */
export interface CallbackDeliveryRecord {
  /** Also the message's `webhook-id`: the same on every retry and resend, for receivers to dedupe. */
  id: string;
  /** Insertion order across the store: the delivery log's keyset. */
  seq: number;
  endpointId: string;
  teamUid: string;
  eventType: CallbackEventType;
  runId: string;
  factoryUid: string | null;
  /** `null` for `run.created` and `run.artifact_added`. */
  fromState: RunState | null;
  /** The run's state after the change (when the artifact was added, for `run.artifact_added`). */
  toState: RunState;
  statusMessage: RunStatusMessage | null;
  /** The run's `updated_at` after the change (its `created_at` for `run.created`, the artifact's for `run.artifact_added`). */
  occurredAt: string;
  /** The artifact of a `run.artifact_added`; `null` for the other events. */
  artifact: CallbackArtifact | null;
  status: CallbackDeliveryStatus;
  /** Attempts made in all (the log's numbering). */
  attempts: number;
  /** Attempts made since the window started (creation or the last resend). */
  roundAttempts: number;
  /** Where the retry window starts: the event, or the last manual resend. */
  windowStartedAt: string;
  /** When the next attempt is due; `null` once succeeded or failed. */
  nextAttemptAt: string | null;
  updatedAt: string;
}

/** One attempt of a delivery, as the log shows it. */
export interface CallbackAttemptRecord {
  deliveryId: string;
  /** 1, 2, 3… per delivery. */
  attempt: number;
  at: string;
  /** The receiver's HTTP status; `null` when none came (refused address, timeout, connection error). */
  statusCode: number | null;
  durationMs: number;
  /** Why it failed, when no 2xx came: `"HTTP 500"`, `"timeout after 10000 ms"`, … */
  error: string | null;
  ok: boolean;
}

export interface CallbackDeliveryWithAttempts extends CallbackDeliveryRecord {
  /** Oldest first. */
  attemptLog: CallbackAttemptRecord[];
}

/** What a run's write tells the outbox: one event, matched against the team's endpoints. */
export interface RunCallbackEvent {
  eventType: CallbackEventType;
  teamUid: string;
  factoryUid: string | null;
  runId: string;
  fromState: RunState | null;
  toState: RunState;
  statusMessage: RunStatusMessage | null;
  occurredAt: string;
  artifact: CallbackArtifact | null;
}

/**
 * Whether an endpoint takes an event: the one rule, which the memory store applies as is and
 * the Postgres store's triggers spell in SQL; the conformance suite holds them equal.
 */
export const endpointWants = (endpoint: CallbackEndpointRecord, event: RunCallbackEvent): boolean =>
  endpoint.enabled &&
  endpoint.teamUid === event.teamUid &&
  (endpoint.factoryUid === null || endpoint.factoryUid === event.factoryUid) &&
  (endpoint.eventTypes.length === 0 || endpoint.eventTypes.includes(event.eventType));

/** The slot an endpoint's sealed secret is bound to (secret-cipher.ts): not a team secret's. */
export const callbackSecretSlot = (teamUid: string, endpointId: string): string =>
  `callbacks/${encodeURIComponent(teamUid)}/${encodeURIComponent(endpointId)}`;
