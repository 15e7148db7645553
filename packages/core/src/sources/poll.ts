import type { ControlService } from '../control/control-service.js';
import type { MaintenanceTask } from '../maintenance/maintenance.js';

/** How often every factory source is fetched by default, the fallback to push notifications (docs/repositories.md). */
export const DEFAULT_SOURCE_POLL_MS = 60_000;

/**
 * The poll of factory sources as a maintenance task: a runner's `sources` part runs it on its
 * timer, and it stops with the runner (docs/embedding.md, "Maintenance"). Several processes polling at once is
 * harmless: the store's claim applies each commit once.
 */
/** Its name: the runner's `sources` part runs this task (app/agent-run-runner.ts). */
export const SOURCE_POLL_TASK = 'factory-source-poll';

export const sourcePollTask = (control: ControlService, everyMs: number): MaintenanceTask => ({
  name: SOURCE_POLL_TASK,
  everyMs,
  run: () => control.pollSources(),
});
