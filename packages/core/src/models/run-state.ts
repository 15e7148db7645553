/**
 * The lists of a run's states and sources, as plain values with no schema library behind them, so
 * a browser bundle or the client's build can take them alone (their schemas are in models/run.ts).
 */

/** Every state a run can be in (docs/state-machine.md). */
export const RUN_STATES = ['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS', 'SUCCEEDED', 'FAILED', 'BLOCKED', 'ERROR', 'CANCELLED'] as const;
export type RunState = (typeof RUN_STATES)[number];

/**
 * The states a run never leaves by itself (docs/state-machine.md); SUCCEEDED and FAILED still take
 * a follow-up, which queues the run again (run/state-machine.ts).
 */
export const TERMINAL_STATES: ReadonlySet<RunState> = new Set<RunState>(['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED']);

/** Who or what created a run. `WEBHOOK` marks runs started by the webhook ingress. */
export const RUN_SOURCES = [
  'API',
  'CLI',
  'WEBHOOK',
  'LINEAR',
  'SLACK',
  'LOCAL',
  'SCHEDULED_AGENT',
  'WEB_APP',
  'GITHUB_ACTION',
  'CLOUD_MODE',
] as const;
export type RunSourceType = (typeof RUN_SOURCES)[number];
