import { EventEmitter } from 'eventemitter3';
import type { RunItem } from './models/run.js';
import type { RunState } from './models/run-state.js';

/**
 * Events for host apps (and the in-process worker). Emitted after the change is stored, in the
 * process that made it; a listener that throws does not undo or fail the change (its error goes
 * to the handler's `onError`).
 */
export interface AgentRunEventMap {
  'run.created': [event: { run: RunItem; team_uid: string }];
  'run.state_changed': [event: { run: RunItem; team_uid: string; from: RunState; to: RunState }];
  'run.followup': [event: { run: RunItem; team_uid: string; followup_id: string; message: string }];
}

export type AgentRunEvents = EventEmitter<AgentRunEventMap>;

export const createEvents = (): AgentRunEvents => new EventEmitter<AgentRunEventMap>();

/**
 * Emit without letting a listener's exception reach the code that stored the change, or crash the
 * process: it goes to `onError`. (As with any emitter, listeners after the one that threw do not
 * hear that one event; agentrun's own worker listens only to act sooner, never for correctness.)
 */
export function emitSafely<K extends keyof AgentRunEventMap>(
  events: AgentRunEvents,
  onError: (error: unknown) => void,
  name: K,
  ...args: AgentRunEventMap[K]
): void {
  try {
    (events.emit as (n: K, ...a: AgentRunEventMap[K]) => boolean)(name, ...args);
  } catch (error) {
    onError(error);
  }
}
