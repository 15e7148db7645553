import { join } from 'node:path';
import type { Harness, HarnessTurn, Invocation } from '../harness.js';
import { geminiContext } from './gemini-context.js';
import { geminiSettings } from './gemini-settings.js';
import { geminiStreamParser } from './gemini-stream.js';

/**
 * Gemini CLI (`@google/gemini-cli`), run headless: `gemini --prompt=… --output-format=stream-json
 * --approval-mode=yolo --model=…` in the workspace, its state and settings in `<home>/.gemini`
 * (docs/harnesses.md, "Gemini CLI").
 */
export const geminiHarness: Harness = {
  type: 'gemini',
  program: 'gemini',
  package: { name: '@google/gemini-cli', version: '0.61.0' },
  apiKeyVariable: 'GEMINI_API_KEY',
  endpointVariable: 'GOOGLE_GEMINI_BASE_URL',
  // `--resume` after a turn that called tools sends each tool's result twice, which the Gemini API
  // refuses ("the number of function response parts is equal to the number of function call
  // parts"): a follow-up is a new session told the conversation so far.
  followups: 'replay',
  invocation: geminiInvocation,
  parser: geminiStreamParser,
};

/**
 * The model when the run names none: the CLI's `pro` alias, its default Pro model. Its own default,
 * `auto`, first asks a classifier model which model to use, with retries that the settings do not
 * bound (over a minute against an unreachable endpoint).
 */
export const GEMINI_DEFAULT_MODEL = 'pro';

function geminiInvocation(turn: HarnessTurn): Invocation {
  const dir = join(turn.home, '.gemini');
  const args = [
    // `--flag=value`: a prompt starting with `-` stays the prompt.
    `--prompt=${turn.prompt}`,
    '--output-format=stream-json',
    '--approval-mode=yolo',
    `--model=${turn.model ?? GEMINI_DEFAULT_MODEL}`,
    // The session is looked up among the workspace's sessions in the home: same workspace path, same home.
    ...(turn.resume === undefined ? [] : [`--resume=${turn.resume}`]),
  ];
  return {
    args,
    env: {
      // The CLI would start itself again as a child node with a heap limit of half the machine's
      // memory: one process, node's own limit, a second less to start.
      GEMINI_CLI_NO_RELAUNCH: 'true',
      // System settings (default /etc/gemini-cli/settings.json) override the user's: a file that
      // does not exist keeps a host's settings out of the run.
      GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(dir, 'system-settings.json'),
      // Where the CLI writes error reports, each with the request's conversation: the run's own
      // temporary directory (the CLI makes it at start), not a shared /tmp.
      TMPDIR: join(dir, 'tmp'),
    },
    files: [
      { path: join(dir, 'settings.json'), content: `${JSON.stringify(geminiSettings(turn), null, 2)}\n` },
      // Written on every turn, empty when there are none, so a follow-up never sees stale instructions.
      { path: join(dir, 'GEMINI.md'), content: geminiContext(turn.instructions ?? '') },
    ],
  };
}
