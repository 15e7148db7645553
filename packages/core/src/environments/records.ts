import type { ContainerLimits } from './resolved.js';

/**
 * An environment (docs/repositories.md, "Environments"; seed 2.2 `environment_id` selects one): what
 * a run's workspace is prepared from. Team-wide: a run names it by `environment_id`. One defined by
 * a factory's file (`environments/<name>.yaml`) belongs to that factory's files, and the API refuses
 * to change it, as it refuses file-defined webhooks.
 */
export interface EnvironmentRecord {
  id: string;
  teamUid: string;
  /** The factory whose definition files define it; `null`: made through the API. */
  factoryUid: string | null;
  /** Unique in the team. */
  name: string;
  /** Cloned into the workspace, in order. */
  repositories: EnvironmentRepository[];
  /** Shell commands run in the workspace after the clones, in order. */
  setup: string[];
  /** Environment variable name → the team secret whose value it takes. */
  variables: Record<string, string>;
  /** How long the clones and setup together may take. */
  setupTimeoutSeconds: number;
  /** The OCI image a container executor starts the run from; unset: the executor's own (docs/executors.md, "The container executor"). */
  image?: string;
  /** The run's container limits; unset, or a key left out: the executor's defaults. */
  limits?: ContainerLimits;
  createdAt: string;
  updatedAt: string;
}

export interface EnvironmentRepository {
  /** A clone URL, or the `<owner>/<repo>` name of a repository the team registered. */
  repository: string;
  /** A branch, tag or full commit SHA. */
  ref: string;
  /** Where in the workspace it is cloned: a relative path. */
  directory: string;
}
