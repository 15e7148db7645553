/**
 * What the scripted model server answers (server.ts): a list of steps, one per model turn. Which
 * step a request gets is read from the request itself, not from the server's memory: the number
 * of model turns already in its history. A retried request gets the same answer, a follow-up that
 * continues a session (its history holds every earlier turn) the next step, and several runs can
 * share one server.
 */
export type Step =
  /** The model answers with this text and ends its turn. */
  | { text: string }
  /** The model calls the CLI's shell tool with this command line. */
  | { shell: string }
  /** The model calls the CLI's file-writing tool: `path` relative to the working directory. */
  | { write: { path: string; content: string } };

/** What a request the script has no step for gets. */
const SCRIPT_ENDED = 'The script has no more steps.';

/** The step for a request whose history holds `turns` model turns. */
export const stepAt = (script: readonly Step[], turns: number): Step => script[turns] ?? { text: SCRIPT_ENDED };
