import { type AgentRun, createAgentRun } from '../app/create-agent-run.js';
import type { AgentRunOptions } from '../app/options.js';
import type { ControlService } from '../control/control-service.js';
import type { AgentRunEvents } from '../events.js';
import { AREA_BASE } from '../routes/route.js';
import type { RunService } from '../run/run-service.js';
import type { Mountable } from './mountable.js';

/** Options of `createAgentRunHandler`: those of `createAgentRun`. */
export type AgentRunHandlerOptions = AgentRunOptions;

/**
 * The HTTP surface of an agentrun as one function, for hosts that call it directly
 * (`handler(request)`); it is also a {@link Mountable} for the adapters, and carries the
 * agentrun it was made from (`handler.app`) for its services and workers.
 */
export interface AgentRunHandler extends Mountable {
  (request: Request): Promise<Response>;
  readonly app: AgentRun;
  readonly service: RunService;
  readonly control: ControlService;
  readonly events: AgentRunEvents;
}

export const API_BASE = AREA_BASE.api;

/** `createAgentRun(options)`, as a callable handler (docs/embedding.md). */
export function createAgentRunHandler(options: AgentRunHandlerOptions): AgentRunHandler {
  const app = createAgentRun(options, 'createAgentRunHandler');
  const handler = (request: Request) => app.fetch(request);
  return Object.assign(handler, {
    fetch: app.fetch,
    owns: app.owns,
    app,
    service: app.services.runs,
    control: app.services.control,
    events: app.events,
  });
}
