import * as v from 'valibot';
import { FILTER_LIMITS } from '../filter/limits.js';
import { AmbientAgentConfigSchema } from '../models/config.js';
import { jsonObject } from '../models/json.js';
import { maxValues } from '../models/size-check.js';
import { CREDENTIAL_HEADER_REFUSAL, isCredentialHeader } from './delivery-id-header.js';
import { AUTH_MODES } from './records.js';

/** Provider signature schemes a webhook can name (docs/signatures.md, "Schemes"). */
export const SIGNATURE_SCHEMES = ['standard-webhooks', 'stripe', 'github', 'slack', 'sentry', 'linear', 'shopify', 'gitlab'] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

const name = v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(100));
const uid = v.pipe(v.string(), v.minLength(1), v.maxLength(256));
/** Team secret names: letters, digits, `_`, `-`, `.`; so they are safe in paths and files. */
export const SecretNameSchema = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/, 'must be 1-128 of A-Z a-z 0-9 _ - . and start with a letter or digit'),
);
const secretValue = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(4096));
/** An HTTP header name (RFC 9110 token). */
const HeaderNameSchema = v.pipe(v.string(), v.regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/, 'must be an HTTP header name'));
/** A webhook's `delivery_id_header`, in the API and in definition files alike: never a credential header. */
export const DeliveryIdHeaderSchema = v.pipe(
  HeaderNameSchema,
  v.check(
    (name) => !isCredentialHeader(name),
    (issue) => `${String(issue.input)} ${CREDENTIAL_HEADER_REFUSAL}`,
  ),
);

export const CreateFactorySchema = jsonObject({ name, foreman_agent_identity_uid: v.optional(uid) });

export const PutSecretSchema = jsonObject({ value: secretValue });

export const CreateWebhookSchema = v.pipe(
  jsonObject({
    name,
    auth_mode: v.optional(v.picklist(AUTH_MODES, `must be one of ${AUTH_MODES.join(', ')}`), 'token'),
    signature_scheme: v.optional(v.picklist(SIGNATURE_SCHEMES, `must be one of ${SIGNATURE_SCHEMES.join(', ')}`)),
    secret_name: v.optional(SecretNameSchema),
    provider_secret: v.optional(secretValue),
    delivery_id_header: v.optional(DeliveryIdHeaderSchema),
  }),
  v.check(
    (w) => (w.auth_mode === 'signature') === (w.signature_scheme !== undefined),
    'signature_scheme is required with auth_mode signature, and only then',
  ),
  v.check((w) => w.provider_secret === undefined || w.auth_mode === 'signature', 'provider_secret goes with auth_mode signature'),
  v.check(
    (w) => w.provider_secret === undefined || w.secret_name === undefined,
    'give provider_secret or the secret_name of an existing secret, not both',
  ),
);

export const PatchWebhookSchema = v.pipe(
  jsonObject({ enabled: v.optional(v.boolean()), delivery_id_header: v.optional(v.nullable(DeliveryIdHeaderSchema)) }),
  v.check((p) => Object.keys(p).length > 0, 'give enabled and/or delivery_id_header'),
);

export const ProviderSecretSchema = jsonObject({ secret: secretValue });

/** A trigger as the API takes it (seed 2.6); definition files take it too (definitions/schemas.ts). */
export const TriggerSchema = jsonObject({
  provider: v.literal('webhook', 'must be "webhook"'),
  event: v.literal('received', 'must be "received"'),
  filter: jsonObject({
    webhook_ids: v.pipe(v.array(uid), v.minLength(1, 'select at least one webhook'), v.maxLength(20)),
    // Checked and compiled by the payload filter rules, which name the failing path; their byte
    // limit bounds the values it holds (models/size-check.ts, maxValues).
    payload: v.optional(v.pipe(v.unknown(), maxValues(FILTER_LIMITS.maxBytes))),
  }),
});

export const automationFields = {
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200)),
  prompt: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(100_000)),
  enabled: v.optional(v.boolean()),
  config: v.optional(v.nullable(AmbientAgentConfigSchema)),
  triggers: v.pipe(v.array(TriggerSchema), v.maxLength(10)),
};

export const CreateAutomationSchema = jsonObject(automationFields);

export const PatchAutomationSchema = v.pipe(
  jsonObject({
    name: v.optional(automationFields.name),
    prompt: v.optional(automationFields.prompt),
    enabled: v.optional(v.boolean()),
    config: automationFields.config,
    triggers: v.optional(automationFields.triggers),
  }),
  v.check((p) => Object.keys(p).length > 0, 'give at least one field to change'),
);

export const TestFilterSchema = v.union(
  [jsonObject({ webhook_uid: uid, payload: v.unknown() }), jsonObject({ delivery_id: uid })],
  'give { webhook_uid, payload } or { delivery_id }',
);
