import { accessSync, constants, existsSync, lstatSync, readlinkSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import type { BubblewrapSandbox } from './options.js';

/**
 * The bubblewrap sandbox (docs/executors.md, "Isolating the agent"): a mount namespace that shows
 * the agent the system's programs and libraries read-only, a minimal /etc, a /proc of the run's
 * PID namespace, a private /dev and /tmp, the workspace read-write at its own path, and only
 * what the executor's options grant beside. Everything else of the host (the server's files, its
 * configuration, other runs' workspaces) is not there. bwrap runs inside the run's PID namespace
 * (containment.ts), under its init, so it needs no PID namespace of its own.
 */

/** The system's programs and libraries, read-only (a symlink, as on merged-/usr Debian, stays one). */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/** What of /etc programs need: users, name resolution, the dynamic linker, TLS roots, alternatives, the time zone. */
const ETC_FILES = [
  '/etc/passwd',
  '/etc/group',
  '/etc/nsswitch.conf',
  '/etc/hosts',
  '/etc/resolv.conf',
  '/etc/host.conf',
  '/etc/gai.conf',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/ssl',
  '/etc/ca-certificates',
  '/etc/ca-certificates.conf',
  '/etc/alternatives',
  '/etc/localtime',
  '/etc/mime.types',
];

/** The path of `bwrap` on the server's PATH; throws an Error saying how to get it when there is none. */
export function findBubblewrap(path: string | undefined): string {
  const found = findProgram('bwrap', path);
  if (found) return found;
  throw new Error(
    'processExecutor: option sandbox: bubblewrap is not installed (no bwrap on PATH; on Debian and Ubuntu: apt-get install bubblewrap)',
  );
}

/** Where `name` resolves on `path` (a name with a slash is taken as it is), like execvp; undefined when nowhere. */
export function findProgram(name: string, path: string | undefined): string | undefined {
  const candidates = name.includes('/')
    ? [name]
    : (path ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, name));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/** Where a run's writable space is on the host (run-area.ts): its workspace, and what becomes its /tmp and /dev/shm. */
export interface SandboxPaths {
  workspace: string;
  tmp: string;
  shm: string;
  /** A harness's home of the run's own (harness-run.ts), shown read-write at its own path. */
  home?: string;
  /** Host paths this run's program needs, shown read-only (a harness's installed CLI). */
  readOnly?: readonly string[];
}

/** bwrap's arguments up to the command (ending with `--`), for a run whose directories are `paths`. */
export function bubblewrapArgs(sandbox: Required<BubblewrapSandbox>, paths: SandboxPaths, options: { setUser: boolean }): string[] {
  const workspaceDir = paths.workspace;
  const args = ['--unshare-ipc', '--unshare-uts', '--die-with-parent'];
  if (!sandbox.network) args.push('--unshare-net');
  for (const dir of SYSTEM_DIRS) {
    const stat = lstatOrUndefined(dir);
    if (stat?.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else if (stat?.isDirectory()) args.push('--ro-bind', dir, dir);
  }
  // bwrap makes a mount point's missing parents mode 0700: an agent under its own user could not
  // pass them (/etc, a workspace root), so they are made 0755 first (they hold nothing else).
  const made = new Set<string>();
  const bind = (how: string, path: string) => {
    for (let dir = dirname(path), parents: string[] = []; ; dir = dirname(dir)) {
      if (dir === '/' || made.has(dir)) {
        for (const parent of parents.reverse()) args.push('--perms', '0755', '--dir', parent);
        break;
      }
      made.add(dir);
      parents.push(dir);
    }
    args.push(how, path, path);
  };
  for (const file of ETC_FILES) if (existsSync(file)) bind('--ro-bind', file);
  // /tmp and /dev/shm are the run's own directories (mode 1777, as on a host): writable by the
  // agent's user, counted against the run's cap and removed with the run (run-area.ts), not RAM.
  args.push('--proc', '/proc', '--dev', '/dev', '--bind', paths.tmp, '/tmp', '--bind', paths.shm, '/dev/shm');
  for (const path of sandbox.readOnly) bind('--ro-bind', path);
  for (const path of sandbox.readWrite) bind('--bind', path);
  for (const path of paths.readOnly ?? []) bind('--ro-bind', path);
  if (paths.home) bind('--bind', paths.home);
  // Last, so a tmpfs above (a workspace root under /tmp) does not hide it.
  bind('--bind', workspaceDir);
  args.push('--chdir', workspaceDir);
  // bwrap run by root keeps root's capabilities for the command unless told: every one is
  // dropped (a root agent could otherwise mount over what it is shown), but, with a user, the
  // two setpriv (spawn-agent.ts) needs to switch to it and the one bwrap needs to enter its 0700
  // workspace; the switch to a uid that is not 0 clears them all (the secret hunt checks CapEff).
  args.push('--cap-drop', 'ALL');
  if (options.setUser) args.push('--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID', '--cap-add', 'CAP_DAC_OVERRIDE');
  args.push('--');
  return args;
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
