import * as v from 'valibot';
import type { EnvironmentRecord } from './records.js';

/** An environment as the API shows it (docs/repositories.md, "The API"). */
export const EnvironmentViewSchema = v.object({
  id: v.string(),
  name: v.string(),
  repositories: v.array(v.object({ repository: v.string(), ref: v.string(), directory: v.string() })),
  setup: v.array(v.string()),
  /** Environment variable name → team secret name (never a value). */
  variables: v.record(v.string(), v.string()),
  setup_timeout_seconds: v.number(),
  /** Set when a factory's definition files define it: `environments/<name>.yaml`. */
  definition_file: v.optional(v.string()),
  factory_uid: v.nullable(v.string()),
  created_at: v.string(),
  updated_at: v.string(),
});
export type EnvironmentView = v.InferOutput<typeof EnvironmentViewSchema>;

export const EnvironmentListSchema = v.object({ environments: v.array(EnvironmentViewSchema) });

export const environmentView = (e: EnvironmentRecord): EnvironmentView => ({
  id: e.id,
  name: e.name,
  repositories: e.repositories.map((r) => ({ ...r })),
  setup: [...e.setup],
  variables: { ...e.variables },
  setup_timeout_seconds: e.setupTimeoutSeconds,
  ...(e.factoryUid !== null ? { definition_file: `environments/${e.name}.yaml` } : {}),
  factory_uid: e.factoryUid,
  created_at: e.createdAt,
  updated_at: e.updatedAt,
});
