import { HELPER_PATH } from './run-program.js';
import { findProgram } from './sandbox.js';

/**
 * Closing what the server inherited (docs/executors.md, "Isolating the agent"). Node opens its own
 * descriptors close-on-exec, but one the server was started with is passed to every program it
 * runs: a pipe from the shell that launched it, a supervisor's sockets. The agent must get only
 * 0–2 (its protocol), so the first program of every agent's chain closes the rest and then execs
 * the next. bash closes any number (`exec {n}>&-`); a POSIX sh closes only 3–9 (its redirections
 * take one digit), so bash is used where there is one (Debian and Ubuntu always have it). The
 * shell must leave the agent's environment as it was: bash runs with --norc (its stdin is a socket,
 * which it would take for rshd's and read ~/.bashrc), and `env -u` drops the SHLVL and PWD the
 * shells add.
 */
const BASH_CLOSE = [
  `for f in /proc/$$/fd/*; do n=\${f##*/}; case $n in 0|1|2) ;; *) { exec {n}>&-; } 2>/dev/null ;; esac; done`,
  'env=$1',
  'shift',
  'exec "$env" -u SHLVL -u PWD "$@"',
].join('\n');

const SH_CLOSE = ['env=$1', 'shift', 'exec 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-', 'exec "$env" -u SHLVL -u PWD "$@"'].join('\n');

/**
 * The wrapper to put before a program (`[...close, program, ...args]`): it closes, then execs the
 * program. Its programs are found here, on the server's PATH, not the agent's (which `env.set` may replace).
 */
export function closeDescriptors(): string[] {
  const bash = findProgram('bash', HELPER_PATH);
  const env = findProgram('env', HELPER_PATH) ?? '/usr/bin/env';
  return bash ? [bash, '--norc', '-c', BASH_CLOSE, 'agentrun-close', env] : ['/bin/sh', '-c', SH_CLOSE, 'agentrun-close', env];
}
