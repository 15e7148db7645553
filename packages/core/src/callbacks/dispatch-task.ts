import type { MaintenanceTask } from '../maintenance/maintenance.js';
import type { CallbackDispatcher } from './dispatcher.js';

/**
 * The dispatcher as a maintenance task (docs/embedding.md, "Maintenance"): every tick (`everyMs`
 * 0) of a runner's `callbacks` part, in every process that runs one; the store's claim keeps them from sending one delivery twice.
 */
/** Its name: the runner's `callbacks` part runs this task (app/agent-run-runner.ts). */
export const CALLBACK_DISPATCH_TASK = 'callback-dispatch';

export const callbackDispatchTask = (dispatcher: CallbackDispatcher, everyMs = 0): MaintenanceTask => ({
  name: CALLBACK_DISPATCH_TASK,
  everyMs,
  run: () => dispatcher.dispatchDue(),
});
