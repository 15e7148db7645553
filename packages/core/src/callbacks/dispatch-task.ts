import type { MaintenanceTask } from '../maintenance/maintenance.js';
import type { CallbackDispatcher } from './dispatcher.js';

/**
 * The dispatcher on the workers' timer (docs/embedding.md, "Maintenance"): every tick (`everyMs`
 * 0), in every process with a worker; the store's claim keeps them from sending one delivery twice.
 */
export const callbackDispatchTask = (dispatcher: CallbackDispatcher, everyMs = 0): MaintenanceTask => ({
  name: 'callback-dispatch',
  everyMs,
  run: () => dispatcher.dispatchDue(),
});
