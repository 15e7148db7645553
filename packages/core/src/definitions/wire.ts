import * as v from 'valibot';

// The answer of `POST /factories/{factoryUid}/apply` (docs/definitions.md, "Applying").

export const DEFINITION_ACTIONS = ['create', 'adopt', 'update', 'unchanged', 'delete'] as const;
export type DefinitionAction = (typeof DEFINITION_ACTIONS)[number];

const PlannedWebhookSchema = v.object({
  name: v.string(),
  action: v.picklist(DEFINITION_ACTIONS),
  uid: v.string(),
  /** The keys that change (snake_case), for `update` and `adopt`. */
  changes: v.array(v.string()),
  /** Its ingress URL (a `url_token` webhook's carries `{token}`). */
  ingress_url: v.string(),
  /** The team secret got a new value since this webhook last applied: it takes effect at its next apply. */
  secret_pending: v.boolean(),
});

const PlannedAutomationSchema = v.object({
  name: v.string(),
  action: v.picklist(DEFINITION_ACTIONS),
  id: v.string(),
  changes: v.array(v.string()),
});

/** An `environments/<name>.yaml` (docs/repositories.md, "Environment files"). */
const PlannedEnvironmentSchema = v.object({
  name: v.string(),
  action: v.picklist(DEFINITION_ACTIONS),
  id: v.string(),
  changes: v.array(v.string()),
});

/** A `schedules/<name>.yaml` (docs/schedules.md). */
const PlannedScheduleSchema = v.object({
  name: v.string(),
  action: v.picklist(DEFINITION_ACTIONS),
  id: v.string(),
  changes: v.array(v.string()),
});

export const ApplyResultSchema = v.object({
  /** Whether anything was written (false for a dry run and for an apply that changes nothing). */
  applied: v.boolean(),
  dry_run: v.boolean(),
  /** The factory's definition version after this apply (0: never applied). */
  version: v.pipe(v.number(), v.integer()),
  webhooks: v.array(PlannedWebhookSchema),
  automations: v.array(PlannedAutomationSchema),
  environments: v.array(PlannedEnvironmentSchema),
  schedules: v.array(PlannedScheduleSchema),
});

export type ApplyResult = v.InferOutput<typeof ApplyResultSchema>;
export type PlannedWebhook = v.InferOutput<typeof PlannedWebhookSchema>;
export type PlannedAutomation = v.InferOutput<typeof PlannedAutomationSchema>;
export type PlannedEnvironment = v.InferOutput<typeof PlannedEnvironmentSchema>;
export type PlannedSchedule = v.InferOutput<typeof PlannedScheduleSchema>;
