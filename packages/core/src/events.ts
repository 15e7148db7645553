import { EventEmitter } from 'eventemitter3';
import type { RunItem } from './models/run.js';
import type { RunState } from './models/run-state.js';

/**
 * Events for host apps (and the in-process worker). Emitted after the change is stored, in the
 * process that made it; a listener that throws does not undo or fail the change.
 */
export interface AgentRunEventMap {
  'run.created': [event: { run: RunItem; team_uid: string }];
  'run.state_changed': [event: { run: RunItem; team_uid: string; from: RunState; to: RunState }];
  'run.followup': [event: { run: RunItem; team_uid: string; followup_id: string; message: string }];
}

export type AgentRunEvents = EventEmitter<AgentRunEventMap>;

export const createEvents = (): AgentRunEvents => new EventEmitter<AgentRunEventMap>();

/** Emit without letting a listener's exception reach the caller that stored the change. */
export function emitSafely<K extends keyof AgentRunEventMap>(events: AgentRunEvents, name: K, ...args: AgentRunEventMap[K]): void {
  try {
    (events.emit as (n: K, ...a: AgentRunEventMap[K]) => boolean)(name, ...args);
  } catch (error) {
    // A host listener failing is the host's bug; the run was stored and stays stored.
    queueMicrotask(() => {
      throw error;
    });
  }
}
