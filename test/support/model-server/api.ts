import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Step } from './script.js';

/** One model API the scripted server speaks, as far as one agent CLI calls it. */
export interface ModelApi {
  readonly name: 'anthropic' | 'openai' | 'gemini';
  /** Whether this API serves the request (method and path, query included). */
  matches(method: string, url: string): boolean;
  /** How many model turns the request's history already holds (script.ts). */
  turns(body: unknown): number;
  /** Answer with `step`, in the API's own (streamed) form; `body` is the request's parsed JSON. */
  respond(step: Step, request: { url: string; body: unknown; req: IncomingMessage }, res: ServerResponse): void;
}
