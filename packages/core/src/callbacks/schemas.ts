import * as v from 'valibot';
import { jsonObject } from '../models/json.js';
import { PageInfoSchema, RunStatusMessageSchema } from '../models/run.js';
import { MAX_CALLBACK_URL_LENGTH } from './address-policy.js';
import { CALLBACK_EVENT_TYPES } from './records.js';

/** What the callbacks API takes and answers (docs/callbacks.md, "The API"), as schemas. */

const url = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(MAX_CALLBACK_URL_LENGTH));
const description = v.pipe(v.string(), v.maxLength(500));
const eventTypes = v.pipe(
  v.array(v.picklist(CALLBACK_EVENT_TYPES, `must be one of ${CALLBACK_EVENT_TYPES.join(', ')}`)),
  v.maxLength(CALLBACK_EVENT_TYPES.length * 2),
);

export const CreateCallbackSchema = jsonObject({
  url,
  /** Only this factory's runs; absent: every run of the team. */
  factory_uid: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(256))),
  event_types: v.optional(eventTypes),
  description: v.optional(description),
});

export const PatchCallbackSchema = jsonObject({
  url: v.optional(url),
  event_types: v.optional(eventTypes),
  description: v.optional(description),
  enabled: v.optional(v.boolean()),
});

export const CallbackViewSchema = v.object({
  id: v.string(),
  url: v.string(),
  factory_uid: v.nullable(v.string()),
  event_types: v.array(v.string()),
  description: v.string(),
  enabled: v.boolean(),
  /** `manual` or `failing` (disabled by the failing rule) while disabled. */
  disabled_reason: v.nullable(v.string()),
  failing_since: v.nullable(v.string()),
  created_at: v.string(),
  updated_at: v.string(),
});

export const CallbackListSchema = v.object({ callbacks: v.array(CallbackViewSchema) });

/** The answer that creates an endpoint or rotates its secret: the only one that shows the secret. */
export const CallbackWithSecretSchema = v.object({ callback: CallbackViewSchema, secret: v.string() });

const CallbackAttemptViewSchema = v.object({
  attempt: v.number(),
  at: v.string(),
  status_code: v.nullable(v.number()),
  duration_ms: v.number(),
  error: v.nullable(v.string()),
  ok: v.boolean(),
});

export const CallbackDeliveryViewSchema = v.object({
  /** The message's `webhook-id`. */
  id: v.string(),
  event_type: v.string(),
  run_id: v.string(),
  from: v.nullable(v.string()),
  to: v.string(),
  status_message: v.nullable(RunStatusMessageSchema),
  occurred_at: v.string(),
  /** The artifact of a `run.artifact_added` (its UID; the message carries the whole item); else `null`. */
  artifact_uid: v.nullable(v.string()),
  status: v.picklist(['pending', 'succeeded', 'failed']),
  attempts: v.array(CallbackAttemptViewSchema),
  next_attempt_at: v.nullable(v.string()),
});

export const CallbackDeliveryListSchema = v.object({ deliveries: v.array(CallbackDeliveryViewSchema), page_info: PageInfoSchema });
