import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HARNESSES, type Harness } from '@agentrun/harnesses';
import { CLAUDE, type CliProfile, CODEX, GEMINI } from '../test/harnesses/support/cli-profiles.js';
import type { Step } from '../test/support/model-server/script.js';
import type { ModelServer, RecordedRequest } from '../test/support/model-server/server.js';

/**
 * What the harness bench's two sides share (bench/harness.ts): the CLIs, the turn the model plays
 * (the end-to-end suite's: a shell command, a file written, a final text), the prompt and the key.
 */

export const CLIS: readonly CliProfile[] = [CLAUDE, CODEX, GEMINI];
export const SCRIPT: readonly Step[] = [
  { shell: 'echo hi > from-shell.txt' },
  { write: { path: 'notes.md', content: '# Notes\n' } },
  { text: 'All done' },
];
export const PROMPT = 'Make the files';
export const FINAL_TEXT = 'All done';
export const API_KEY = 'sk-agentrun-bench-5e21b7';
/** One run (either side) taking longer than this is a failure, not a figure. */
export const RUN_TIMEOUT_MS = 180_000;

const BIN = fileURLToPath(new URL('../node_modules/.bin/', import.meta.url));

/** The pinned CLI both sides start: the same file, so neither finds another on PATH. */
export function programOf(cli: CliProfile): { harness: Harness; path: string } {
  const harness = HARNESSES[cli.type] as Harness;
  return { harness, path: join(BIN, harness.program) };
}

/** The CLI's model requests among those from `from` on (a CLI may ask other paths too, which are not turns). */
function turnRequests(model: ModelServer, cli: CliProfile, from: number): RecordedRequest[] {
  return model.requests.slice(from).filter((r) => r.api === cli.api.name);
}

/** The instants of one run that both sides have, on the Date.now() clock the store and the model server stamp. */
export interface TurnTimes {
  /** The CLI's first and last model request arrived. */
  firstRequestAt: number;
  lastRequestAt: number;
  requests: number;
}

export function turnTimes(model: ModelServer, cli: CliProfile, from: number): TurnTimes {
  const requests = turnRequests(model, cli, from);
  const first = requests[0];
  const last = requests.at(-1);
  if (!first || !last) throw new Error(`${cli.type} made no model request`);
  return { firstRequestAt: first.receivedAt, lastRequestAt: last.receivedAt, requests: requests.length };
}
