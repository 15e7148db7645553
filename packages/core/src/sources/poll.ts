import type { ControlService } from '../control/control-service.js';
import type { MaintenanceTask } from '../maintenance/maintenance.js';

/** How often every factory source is fetched by default, the fallback to push notifications (docs/repositories.md). */
export const DEFAULT_SOURCE_POLL_MS = 60_000;

/**
 * The poll of factory sources as a maintenance task: it runs where workers run, on their timer,
 * and stops with them (docs/embedding.md, "Maintenance"). Several processes polling at once is
 * harmless: the store's claim applies each commit once.
 */
export const sourcePollTask = (control: ControlService, everyMs: number): MaintenanceTask => ({
  name: 'factory-source-poll',
  everyMs,
  run: () => control.pollSources(),
});
