/**
 * The `status_message.error_code` values agentrun itself gives a run (docs/run-api.md, "The run";
 * docs/executors.md, "Outcomes, attempts and retries"). An executor or an agent's `result` message
 * may give others: the field stays an open string, and this list is what the docs and the API
 * description name.
 */
export const RUN_ERROR_CODES = [
  /** The executor threw: the platform failed (ERROR). */
  'executor_error',
  /** The run's lease lapsed after its last attempt (ERROR). */
  'lease_expired',
  /** The store refused the executor's outcome for a reason other than an outage (FAILED). */
  'store_rejected_output',
  /** The run's environment, a variable's team secret or a repository was gone when a worker picked it up (FAILED). */
  'environment_unavailable',
  /** The executor could not prepare the workspace from the environment: a clone, a setup command, the setup timeout (FAILED). */
  'environment_setup_failed',
  /** The process executor's agent exited non-zero (FAILED). */
  'agent_exit',
  /** The process executor's run passed its timeout (FAILED). */
  'timeout',
  /** The process executor's workspace passed its size cap (FAILED). */
  'disk_limit',
  /** A team secret the run's config names for its harness's API key was gone, or not a key, when a worker picked it up (FAILED). */
  'auth_secret_unavailable',
  /** The agent CLI ended its turn with an error: the model could not be reached, answered what the CLI could not read, or the CLI failed (FAILED). */
  'agent_failed',
  /** The worker's executor cannot run the harness the run names (FAILED). */
  'harness_unavailable',
  /** The container executor's run names no image, or one its engine does not have (FAILED). */
  'image_unavailable',
  /** The container executor's agent passed its container's memory limit (FAILED). */
  'out_of_memory',
] as const;

export type RunErrorCode = (typeof RUN_ERROR_CODES)[number];
