import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import type { ProcessExecutorOptions } from '@agentrun/executor-process';

/**
 * The isolation modes a hostile case runs in (docs/executors.md, "Isolating the agent"): plain
 * (the server's user, no sandbox), the agent's own user, the bubblewrap sandbox, and both. Each
 * says what the machine must give; `unavailable` says what it lacks, so a case is skipped saying
 * why, and fails under CI=true.
 */
type Need = 'root' | 'bwrap' | 'namespaces' | 'filesystem';

export interface IsolationMode {
  name: string;
  options: Pick<ProcessExecutorOptions, 'user' | 'sandbox'>;
  /** The reference server's settings for the same mode. */
  env: Record<string, string>;
  needs: readonly Need[];
  /** Whether the agent has a /tmp of its own (the host's is out of its reach). */
  privateTmp: boolean;
}

const NOBODY = { uid: 65534, gid: 65534 };

export const ISOLATION_MODES: readonly IsolationMode[] = [
  { name: 'plain', options: {}, env: {}, needs: [], privateTmp: false },
  {
    name: 'its own user',
    options: { user: NOBODY },
    env: { AGENTRUN_AGENT_USER: '65534:65534' },
    needs: ['root', 'namespaces'],
    privateTmp: true,
  },
  {
    name: 'the sandbox',
    options: { sandbox: 'bubblewrap' },
    env: { AGENTRUN_AGENT_SANDBOX: 'bubblewrap' },
    needs: ['bwrap', 'namespaces'],
    privateTmp: true,
  },
  {
    name: 'its own user in the sandbox',
    options: { user: NOBODY, sandbox: 'bubblewrap' },
    env: { AGENTRUN_AGENT_USER: '65534:65534', AGENTRUN_AGENT_SANDBOX: 'bubblewrap' },
    needs: ['root', 'bwrap', 'namespaces'],
    privateTmp: true,
  },
];

/** What of `needs` this machine lacks, said as a reason; undefined when it has them all. */
export function unavailable(needs: readonly Need[]): string | undefined {
  for (const need of needs) {
    if (need === 'root' && process.geteuid?.() !== 0) return 'running an agent as another user needs root (or CAP_SETUID and CAP_SETGID)';
    if (need === 'bwrap' && !onPath('bwrap')) return 'bubblewrap is not installed (apt-get install bubblewrap)';
    if (need === 'namespaces') {
      const probe = spawnSync('unshare', ['--pid', '--fork', '--kill-child', '--mount-proc', 'true']);
      if (probe.status !== 0) return `no PID namespace can be had here (${String(probe.stderr).trim() || probe.error?.message})`;
    }
    if (need === 'filesystem' && process.geteuid?.() !== 0) return 'a filesystem per run needs root (mount)';
  }
  return undefined;
}

function onPath(name: string): boolean {
  return (process.env.PATH ?? '').split(':').some((dir) => {
    try {
      accessSync(`${dir}/${name}`, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
