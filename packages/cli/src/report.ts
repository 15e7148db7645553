import { AgentRunError, APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@agentrun/client';
import type { Io } from './command.js';
import { CliError, UsageError } from './errors.js';
import { EXIT } from './exit-codes.js';
import { terminalText } from './terminal-text.js';

/**
 * An error as the user reads it, on stderr, and the exit code of its class (docs/cli.md, "Exit
 * codes"). An API error shows the problem+json `detail`, its stable `error` code and the status.
 * Every line goes through terminal-text.ts: a detail or a request ID is the server's text.
 */
export function reportError(error: unknown, io: Io, helpHint: string): number {
  const write = (text: string) => io.stderr.write(terminalText(text));
  const say = (text: string) => write(`agentrun: ${text}\n`);
  if (error instanceof UsageError) {
    say(error.message);
    write(`${helpHint}\n`);
    return error.exitCode;
  }
  if (error instanceof CliError) {
    say(error.message);
    return error.exitCode;
  }
  if (error instanceof APIError) {
    say(error.detail ?? error.title ?? error.message);
    const id = error.request_id ? `, request ${error.request_id}` : '';
    write(`  error: ${error.error ?? 'unknown'} (HTTP ${error.status}${id})\n`);
    return EXIT.api;
  }
  if (error instanceof APIConnectionTimeoutError) {
    say('no answer from the server before the timeout');
    return EXIT.network;
  }
  if (error instanceof APIConnectionError) {
    say(`cannot reach the server: ${describeCause(error.cause) ?? error.message}`);
    return EXIT.network;
  }
  if (error instanceof APIUserAbortError) {
    say('interrupted');
    return EXIT.network;
  }
  if (error instanceof AgentRunError) {
    // An answer that is not what the API answers (APIResponseError: not JSON, the wrong shape, a
    // repeated page cursor; a stream's event that is not one): the API's fault, as an error status is.
    say(`the server's answer is malformed: ${error.message}`);
    return EXIT.api;
  }
  say(`internal error, please report it: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return EXIT.internal;
}

/** fetch's `TypeError: fetch failed` hides the useful part (ECONNREFUSED 127.0.0.1:9) in its cause. */
function describeCause(cause: unknown): string | undefined {
  let current = cause;
  let best: string | undefined;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    best = current.message;
    current = current.cause;
  }
  return best;
}
