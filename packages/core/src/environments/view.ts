import * as v from 'valibot';
import type { EnvironmentRecord } from './records.js';
import type { ContainerLimits } from './resolved.js';

/** An environment as the API shows it (docs/repositories.md, "The API"). */
export const EnvironmentViewSchema = v.object({
  id: v.string(),
  name: v.string(),
  repositories: v.array(v.object({ repository: v.string(), ref: v.string(), directory: v.string() })),
  setup: v.array(v.string()),
  /** Environment variable name → team secret name (never a value). */
  variables: v.record(v.string(), v.string()),
  setup_timeout_seconds: v.number(),
  /** The OCI image a container executor starts runs from; absent: the executor's own. */
  image: v.optional(v.string()),
  /** The run container's limits; absent, or a key absent: the executor's defaults. */
  limits: v.optional(
    v.object({
      memory_mb: v.optional(v.pipe(v.number(), v.integer())),
      cpus: v.optional(v.number()),
      pids: v.optional(v.pipe(v.number(), v.integer())),
      network: v.optional(v.string()),
    }),
  ),
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
  ...(e.image !== undefined ? { image: e.image } : {}),
  ...(e.limits !== undefined ? { limits: limitsView(e.limits) } : {}),
  ...(e.factoryUid !== null ? { definition_file: `environments/${e.name}.yaml` } : {}),
  factory_uid: e.factoryUid,
  created_at: e.createdAt,
  updated_at: e.updatedAt,
});

const limitsView = (l: ContainerLimits): NonNullable<EnvironmentView['limits']> => ({
  ...(l.memoryMb !== undefined ? { memory_mb: l.memoryMb } : {}),
  ...(l.cpus !== undefined ? { cpus: l.cpus } : {}),
  ...(l.pids !== undefined ? { pids: l.pids } : {}),
  ...(l.network !== undefined ? { network: l.network } : {}),
});
