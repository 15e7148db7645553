import * as v from 'valibot';
import { AUTH_MODES } from '../control/records.js';
import { automationFields, DeliveryIdHeaderSchema, SecretNameSchema, SIGNATURE_SCHEMES, TriggerSchema } from '../control/schemas.js';
import { environmentFields } from '../environments/schemas.js';
import { FILTER_LIMITS } from '../filter/limits.js';
import { jsonObject } from '../models/json.js';
import { maxValues } from '../models/size-check.js';
import { cronChecks, scheduleFileFields } from '../schedules/schemas.js';

// The body of `POST /factories/{factoryUid}/apply` (docs/definitions.md): a factory's definition
// files, read and converted to snake_case by the CLI (or any caller), applied as one operation.

/** A definition's name is its file name without `.yaml`: the webhook's or automation's name too. */
const DefinitionNameSchema = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/, 'must be 1-100 of A-Z a-z 0-9 _ - . and start with a letter or digit (the file name)'),
);

/** `webhooks/<name>.yaml`. */
const WebhookDefinitionSchema = v.pipe(
  jsonObject({
    name: DefinitionNameSchema,
    auth_mode: v.optional(v.picklist(AUTH_MODES, `must be one of ${AUTH_MODES.join(', ')}`), 'token'),
    signature_scheme: v.optional(v.picklist(SIGNATURE_SCHEMES, `must be one of ${SIGNATURE_SCHEMES.join(', ')}`)),
    // Required: a file-defined webhook's secret is a team secret created first (seed 2.4).
    secret_name: SecretNameSchema,
    delivery_id_header: v.optional(DeliveryIdHeaderSchema),
    enabled: v.optional(v.boolean(), true),
  }),
  v.forward(
    v.check(
      (w) => (w.auth_mode === 'signature') === (w.signature_scheme !== undefined),
      'is required with auth_mode signature, and only then',
    ),
    ['signature_scheme'],
  ),
);

/** The file-name shorthand: a trigger names webhooks by file name; the apply turns the names into UIDs. */
const WebhookNamesTriggerSchema = jsonObject({
  webhooks: v.pipe(v.array(DefinitionNameSchema), v.minLength(1, 'select at least one webhook'), v.maxLength(20)),
  // Checked and compiled by the payload filter rules, which name the failing path; their byte
  // limit bounds the values it holds (models/size-check.ts, maxValues).
  payload: v.optional(v.pipe(v.unknown(), maxValues(FILTER_LIMITS.maxBytes))),
});

/**
 * A trigger in an automation file (docs/definitions.md, "Triggers"): the shorthand above when it
 * has a `webhooks` key, else the seed's shape (2.6) checked by the API's own schema, so that
 * `provider` and `event` have one decider.
 */
const TriggerDefinitionSchema = chosenUnion([WebhookNamesTriggerSchema, TriggerSchema], (input) =>
  typeof input === 'object' && input !== null && 'webhooks' in input ? WebhookNamesTriggerSchema : TriggerSchema,
);

/**
 * A union whose input is parsed by the one option `choose` picks, so a refusal names the failing
 * key of that option (valibot's union answers only "invalid type" when no option fits). It stays a
 * union for what reads schemas as data: the OpenAPI document and the size walk (models/size-check.ts).
 */
function chosenUnion<const O extends v.UnionOptions>(options: O, choose: (input: unknown) => O[number]): v.UnionSchema<O, undefined> {
  const union = v.union(options);
  return { ...union, '~run': (dataset, config) => choose(dataset.value)['~run'](dataset, config) } as v.UnionSchema<O, undefined>;
}

const automationFileFields = {
  prompt: automationFields.prompt,
  enabled: v.optional(v.boolean(), true),
  config: automationFields.config,
  triggers: v.pipe(v.array(TriggerDefinitionSchema), v.maxLength(10)),
};

/**
 * An automation file's content (`automations/<name>.yaml`; its name is the file's): what `apply`
 * sends, and what `agentrun automation create` and `agentrun filter test` read from one file.
 */
export const AutomationFileSchema = jsonObject(automationFileFields);
export type AutomationFile = v.InferOutput<typeof AutomationFileSchema>;
export type TriggerDefinition = AutomationFile['triggers'][number];

/** An automation file as the apply body holds it: named by its file. */
const AutomationDefinitionSchema = jsonObject({ name: DefinitionNameSchema, ...automationFileFields });

/**
 * A file trigger's parts, whichever shape it has (docs/definitions.md, "Triggers"): the webhooks
 * it selects (file names in the shorthand, UIDs in the seed's shape), its payload filter as
 * written, and the path of each within the trigger, for naming a problem.
 */
export function triggerParts(t: TriggerDefinition): {
  byName: boolean;
  webhooks: readonly string[];
  webhooksPath: string;
  payload: unknown;
  payloadPath: string;
} {
  return 'webhooks' in t
    ? { byName: true, webhooks: t.webhooks, webhooksPath: 'webhooks', payload: t.payload, payloadPath: 'payload' }
    : {
        byName: false,
        webhooks: t.filter.webhook_ids,
        webhooksPath: 'filter.webhook_ids',
        payload: t.filter.payload,
        payloadPath: 'filter.payload',
      };
}

/** An environment file (`environments/<name>.yaml`): the API's environment body, named by its file. */
const EnvironmentDefinitionSchema = jsonObject({ name: DefinitionNameSchema, ...environmentFields });

/** A schedule file (`schedules/<name>.yaml`, docs/schedules.md): the API's fields, named by its file, `config` as in automations. */
const ScheduleDefinitionSchema = v.pipe(jsonObject({ name: DefinitionNameSchema, ...scheduleFileFields }), cronChecks());

export const ApplyDefinitionsSchema = jsonObject({
  webhooks: v.optional(v.pipe(v.array(WebhookDefinitionSchema), v.maxLength(100)), []),
  automations: v.optional(v.pipe(v.array(AutomationDefinitionSchema), v.maxLength(200)), []),
  environments: v.optional(v.pipe(v.array(EnvironmentDefinitionSchema), v.maxLength(50)), []),
  schedules: v.optional(v.pipe(v.array(ScheduleDefinitionSchema), v.maxLength(100)), []),
  /** Delete the factory's webhooks and automations that have no file; without it, they are an error. */
  prune: v.optional(v.boolean(), false),
  /** Plan only: answer what would change and write nothing. */
  dry_run: v.optional(v.boolean(), false),
});

export type ApplyDefinitions = v.InferOutput<typeof ApplyDefinitionsSchema>;
export type WebhookDefinition = ApplyDefinitions['webhooks'][number];
export type AutomationDefinition = ApplyDefinitions['automations'][number];
export type EnvironmentDefinition = ApplyDefinitions['environments'][number];
export type ScheduleDefinition = ApplyDefinitions['schedules'][number];
