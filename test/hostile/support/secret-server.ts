import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, linkSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ManagedProcess } from '../../../packages/store-postgres/test/support/processes.js';

/**
 * A reference server (`packages/server/src/main.ts`) in a child process holding secrets for the
 * secret hunt (secret-hunt.test.ts): canaries in AGENTRUN_SECRET_KEY, AGENTRUN_API_KEY,
 * ANTHROPIC_API_KEY (the secret a server would hold beside), DATABASE_URL (PostgreSQL: the real
 * URL with a canary password, which trust authentication never asks for, so it still connects;
 * none on the memory store), and a canary file readable only by the server's user, in its working
 * directory (mode 0700). Its agent is hunter.mjs, copied to a directory of its own that the
 * sandbox is granted read-only; a run whose prompt is `descriptors` instead lists the descriptors
 * of the agent's shell, so one server serves both cases of its isolation mode.
 */

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SERVER_MAIN = join(REPO_ROOT, 'packages/server/src/main.ts');
const TSX = pathToFileURL(join(REPO_ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
const WATCHDOG = new URL('../../../packages/store-postgres/test/support/parent-watchdog.ts', import.meta.url).href;
const HUNTER = fileURLToPath(new URL('./hunter.mjs', import.meta.url));

interface Canaries {
  secretKey: string;
  apiKey: string;
  modelKey: string;
  /** The password in DATABASE_URL (PostgreSQL only). */
  database?: string;
  file: string;
}

export interface SecretServer {
  url: string;
  apiKey: string;
  canaries: Canaries;
  /** The canary file's path (its content is the secret). */
  canaryFile: string;
  /** The hunter's command line (the agent's), for an environment's setup to run the same hunt. */
  hunterCommand: string;
  proc: ManagedProcess;
  stop(): Promise<void>;
}

export async function startSecretServer(options: {
  /** Postgres: the test database's URL and schema; memory: undefined. */
  database?: { url: string; schema: string };
  /** AGENTRUN_AGENT_* settings of the mode under test. */
  env: Record<string, string>;
  /**
   * Descriptors the server inherits beyond 0–2, without close-on-exec, as from a launching shell
   * or a supervisor: fds 3 up to 2 + this (pipes the test holds open). Default none.
   */
  inherited?: number;
}): Promise<SecretServer> {
  const tag = Math.random().toString(36).slice(2, 10);
  const canaries: Canaries = {
    secretKey: Buffer.from(`CANARY-SECRET-KEY-${tag}-${'x'.repeat(32)}`)
      .subarray(0, 32)
      .toString('base64'),
    apiKey: `canary-api-key-${tag}-0123456789`,
    modelKey: `canary-model-key-${tag}`,
    ...(options.database ? { database: `canary-db-${tag}` } : {}),
    file: `CANARY-FILE-${tag}`,
  };
  // The server's own directory: its working directory, the canary file in it, both its user's only.
  const home = mkdtempSync(join(tmpdir(), 'agentrun-hostile-server-'));
  chmodSync(home, 0o700);
  const canaryFile = join(home, '.env');
  writeFileSync(canaryFile, `SERVICE_TOKEN=${canaries.file}\n`, { mode: 0o600 });
  // The hunter, where any user may read it: not under /tmp, which an agent under its own user
  // does not see (it has a /tmp of its own: docs/executors.md, "Isolating the agent").
  const tools = mkdtempSync(join(process.geteuid?.() === 0 ? '/var/lib' : tmpdir(), 'agentrun-hostile-hunter-'));
  chmodSync(tools, 0o755);
  copyFileSync(HUNTER, join(tools, 'hunter.mjs'));
  chmodSync(join(tools, 'hunter.mjs'), 0o644);
  // The workspaces' root: outside the server's own directory, which the agent's user cannot enter.
  const workspaces = mkdtempSync(join(tmpdir(), 'agentrun-hostile-runs-'));

  // Node beside it: the test's own may sit in a home of mode 0700 (CI's does), which the agent's
  // user cannot pass and the sandbox does not show. A hard link costs nothing; a copy across
  // filesystems.
  const node = join(tools, 'node');
  try {
    linkSync(process.execPath, node);
  } catch {
    copyFileSync(process.execPath, node);
    chmodSync(node, 0o755);
  }
  const hunterCommand = `${node} ${join(tools, 'hunter.mjs')}`;
  // `ls` lists the descriptors of the shell it runs under: what the agent holds.
  const agentCommand = `if [ "$(cat "$AGENTRUN_PROMPT_FILE")" = descriptors ]; then ls -l /proc/$$/fd; else exec ${hunterCommand}; fi`;
  const env: Record<string, string> = {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    PORT: '0',
    HOST: '127.0.0.1',
    AGENTRUN_API_KEY: canaries.apiKey,
    AGENTRUN_SECRET_KEY: canaries.secretKey,
    AGENTRUN_POLL_INTERVAL_MS: '100',
    AGENTRUN_EXECUTOR: 'process',
    AGENTRUN_AGENT_COMMAND: agentCommand,
    AGENTRUN_AGENT_KILL_GRACE_MS: '1000',
    AGENTRUN_WORKSPACE_ROOT: workspaces,
    ANTHROPIC_API_KEY: canaries.modelKey,
    ...(options.database && canaries.database
      ? { DATABASE_URL: withPassword(options.database.url, canaries.database), AGENTRUN_DB_SCHEMA: options.database.schema }
      : { AGENTRUN_STORE: 'memory' }),
    ...options.env,
  };
  if (env.AGENTRUN_AGENT_SANDBOX) env.AGENTRUN_AGENT_SANDBOX_READ_ONLY = tools;
  const child = spawn(process.execPath, ['--conditions=agentrun-source', '--import', TSX, '--import', WATCHDOG, SERVER_MAIN], {
    cwd: home,
    env,
    stdio: ['pipe', 'pipe', 'pipe', ...Array.from({ length: options.inherited ?? 0 }, () => 'pipe' as const)],
  });
  const proc = new ManagedProcess('secret-server', child);
  const cleanup = async () => {
    await proc.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(tools, { recursive: true, force: true });
    rmSync(workspaces, { recursive: true, force: true });
  };
  try {
    const [, url] = await proc.waitForLine(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
    return { url: url as string, apiKey: canaries.apiKey, canaries, canaryFile, hunterCommand, proc, stop: cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/** `url` with `password` set: PostgreSQL's trust authentication never asks for it, so it still connects. */
function withPassword(url: string, password: string): string {
  const parsed = new URL(url);
  parsed.password = password;
  return parsed.toString();
}
