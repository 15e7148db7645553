import * as v from 'valibot';
import { DELIVERY_STATUSES } from '../ingress/records.js';
import { AmbientAgentConfigSchema } from '../models/config.js';
import { PageInfoSchema } from '../models/run.js';
import { AUTH_MODES } from './records.js';

/**
 * What the management API answers (docs/management-api.md), as schemas: the OpenAPI document and
 * the typed client read them, and the HTTP conformance suite checks every answer against them.
 * Snake_case, and never a secret value except the one answer that creates or rotates it.
 */

const instant = v.string();

export const FactoryViewSchema = v.object({
  uid: v.string(),
  name: v.string(),
  foreman_agent_identity_uid: v.optional(v.string()),
  created_at: instant,
  updated_at: instant,
});

/**
 * One factory read alone: with whether it has a source repository (docs/repositories.md), so a
 * reader learns that without asking `GET …/source` for a 404.
 */
export const FactoryDetailSchema = v.object({ ...FactoryViewSchema.entries, has_source: v.boolean() });

export const FactoryListSchema = v.object({ factories: v.array(FactoryViewSchema) });

export const SecretViewSchema = v.object({ name: v.string(), created_at: instant, updated_at: instant });

export const SecretListSchema = v.object({ secrets: v.array(SecretViewSchema) });

export const WebhookViewSchema = v.object({
  uid: v.string(),
  name: v.string(),
  auth_mode: v.picklist(AUTH_MODES),
  signature_scheme: v.optional(v.string()),
  secret_name: v.string(),
  delivery_id_header: v.optional(v.string()),
  enabled: v.boolean(),
  /** A URL-token webhook's URL carries `{token}` in place of its token, except when created or rotated. */
  ingress_url: v.string(),
  /** Set for a webhook defined by a file (docs/definitions.md): the API refuses changes its file owns. */
  definition_file: v.optional(v.string()),
  created_at: instant,
  updated_at: instant,
});

/** The answer that creates or rotates a webhook: the only one that shows its secret. */
export const WebhookWithSecretSchema = v.object({
  webhook: WebhookViewSchema,
  ingress_url: v.string(),
  secret: v.optional(v.string()),
});

export const WebhookListSchema = v.object({ webhooks: v.array(WebhookViewSchema) });

export const DeliveryViewSchema = v.object({
  delivery_id: v.string(),
  identity: v.nullable(v.string()),
  size: v.pipe(v.number(), v.integer()),
  received_at: instant,
  status: v.picklist(DELIVERY_STATUSES),
  /** The delivery this entry resent (POST …/resend); `null` for a delivery its sender sent. */
  resent_from: v.nullable(v.string()),
  /**
   * The runs an accepted delivery started, oldest automation first: empty when it matched nothing;
   * `null` while it awaits evaluation, and for every entry not accepted (docs/webhooks.md, "What a delivery keeps").
   */
  run_ids: v.nullable(v.array(v.string())),
});

/** What an accepted delivery kept of its request: headers with secrets masked, and its sender's address. */
const DeliveryRequestSchema = v.object({
  /** In the order received, names in lower case; a secret's value is `[masked]`. */
  headers: v.array(v.object({ name: v.string(), value: v.string() })),
  /** Headers left out by the bounds (docs/webhooks.md, "What a delivery keeps"). */
  omitted_headers: v.pipe(v.number(), v.integer()),
  /** The peer's address as the server's socket saw it (a proxy's, behind one); `null` when the adapter gave none. */
  remote_address: v.nullable(v.string()),
  /** The `User-Agent` header, if it was sent and kept. */
  user_agent: v.nullable(v.string()),
});

/** `POST …/deliveries/{deliveryId}/resend`: the new log entry and the runs it started. */
export const DeliveryResentSchema = v.object({ delivery: DeliveryViewSchema, run_ids: v.array(v.string()) });

export const DeliveryDetailSchema = v.object({
  ...DeliveryViewSchema.entries,
  payload: v.optional(v.unknown()),
  /** The request an accepted delivery came in; `null` for a resend and every entry not accepted. */
  request: v.nullable(DeliveryRequestSchema),
});

export const DeliveryListSchema = v.object({ deliveries: v.array(DeliveryViewSchema), page_info: PageInfoSchema });

const TriggerViewSchema = v.object({
  provider: v.literal('webhook'),
  event: v.literal('received'),
  filter: v.object({ webhook_ids: v.array(v.string()), payload: v.optional(v.unknown()) }),
});

export const AutomationViewSchema = v.object({
  id: v.string(),
  name: v.string(),
  prompt: v.string(),
  enabled: v.boolean(),
  config: v.optional(AmbientAgentConfigSchema),
  triggers: v.array(TriggerViewSchema),
  /**
   * Set for an automation defined by a file (docs/definitions.md): `automations/<name>.yaml`. Its
   * file owns it; the next apply puts back what the file says.
   */
  definition_file: v.optional(v.string()),
  created_at: instant,
  updated_at: instant,
});

export const AutomationListSchema = v.object({ automations: v.array(AutomationViewSchema) });

const CheckSchema = v.object({ passed: v.boolean(), detail: v.string() });

export const TestFilterResultSchema = v.object({
  result: v.picklist(['Would trigger', 'Would not trigger']),
  webhook_check: CheckSchema,
  payload_check: CheckSchema,
  note: v.optional(v.string()),
});

/** The webhook ingress's answer to an accepted (or duplicate) delivery. */
export const DeliveryAcceptedSchema = v.object({ delivery_id: v.string() });
