import { RepositoryError, type RepositoryErrorCode } from '@agentrun/core';
import type { GitResult } from './git-process.js';

/**
 * Which `RepositoryError` a failed fetch is, from git's messages (LANG=C; docs/repositories.md,
 * "The git layer"). Checked in order; the first that matches decides.
 */
const RULES: [RegExp, RepositoryErrorCode][] = [
  [/couldn't find remote ref|unknown revision|not our ref|no such remote ref/i, 'not_found'],
  [/returned error: 40[13]|authentication failed|could not read (username|password)|terminal prompts disabled|askpass/i, 'unauthorized'],
  [
    /returned error: 404|repository not found|repository '[^']*' not found|does not appear to be a git repository|not a git repository|no such file or directory/i,
    'not_found',
  ],
  [/transport '[^']*' not allowed|unsupported protocol|protocol '[^']*' is not supported/i, 'invalid'],
];

/** The code for a failed git call: a timeout is `unreachable`, and so is anything unrecognized (the network, the server). */
function classifyGitFailure(result: GitResult): RepositoryErrorCode {
  if (result.timedOut) return 'unreachable';
  for (const [pattern, code] of RULES) if (pattern.test(result.stderr)) return code;
  return 'unreachable';
}

/**
 * git's first `fatal:`/`error:` line, for a message a person can act on, with every secret
 * removed (the credential and its header value, in case a server or git ever echoed them) and
 * bounded in length.
 */
function gitReason(result: GitResult, secrets: string[]): string {
  if (result.timedOut) return 'git timed out';
  const line =
    result.stderr
      .split('\n')
      .map((text) => text.trim())
      .find((text) => /^(fatal|error):/.test(text)) ?? `git exited with ${result.code}`;
  return redact(line, secrets).slice(0, 300);
}

/** `text` with every non-empty secret replaced. */
function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join('[redacted]');
  return out;
}

export function failure(result: GitResult, what: string, secrets: string[]): RepositoryError {
  return new RepositoryError(classifyGitFailure(result), `${what}: ${gitReason(result, secrets)}`);
}
