import type { Harness, HarnessTurn, Invocation } from '../harness.js';
import { codexConfig } from './codex-config.js';
import { codexParser } from './codex-stream.js';

/** Codex's state and config directory inside the run's home. */
const codexHome = (home: string): string => `${home.replace(/\/+$/, '')}/.codex`;

/**
 * OpenAI's Codex CLI, `codex exec`: one non-interactive turn a process, its events as JSON lines
 * on stdout. Everything but the model and the prompt is in `$CODEX_HOME/config.toml`
 * (codex-config.ts). A follow-up is `codex exec resume <thread id>`, in the same home: Codex keeps
 * the thread's history under `$CODEX_HOME/sessions` and sends all of it again.
 */
export const codexHarness: Harness = {
  type: 'codex',
  program: 'codex',
  package: { name: '@openai/codex', version: '0.171.0' },
  apiKeyVariable: 'OPENAI_API_KEY',
  // Codex 0.171 does not read this variable (the config's provider holds `turn.endpoint`); it is
  // what OpenAI's clients read, so the agent's own tools find the endpoint there.
  endpointVariable: 'OPENAI_BASE_URL',
  authSecretField: 'codex_auth_secret_name',
  // `turn.completed` counts the thread's tokens, a resumed thread's earlier turns included.
  usageCounts: 'session',
  invocation(turn: HarnessTurn): Invocation {
    const home = codexHome(turn.home);
    const args = [
      'exec',
      '--json',
      '--skip-git-repo-check',
      // The executor is the sandbox; Codex's own would ask approvals nobody can give.
      '--dangerously-bypass-approvals-and-sandbox',
      '--cd',
      turn.workspace,
    ];
    if (turn.model) args.push('--model', turn.model);
    // `--` keeps a prompt that starts with `-` a prompt.
    if (turn.resume) args.push('resume', turn.resume, '--', turn.prompt);
    else args.push('--', turn.prompt);
    return {
      args,
      env: { CODEX_HOME: home },
      files: [{ path: `${home}/config.toml`, content: codexConfig(turn) }],
    };
  },
  parser: codexParser,
};
