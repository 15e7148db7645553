import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A PostgreSQL cluster of a test's own (initdb in a temp dir, its own port), for tests that stop
 * and start a database. The shared server is never touched (docs/development.md).
 */
export interface OwnCluster {
  url: string;
  /** Stop it at once (`-m immediate`), as a crash would; nothing when it is stopped. */
  stop(): void;
  /** Start it, waiting until it accepts connections; nothing when it runs. */
  start(): void;
  destroy(): void;
}

const BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** Why no cluster can be made here, or undefined when one can. */
export function ownClusterUnavailable(): string | undefined {
  if (!existsSync(join(BIN, 'initdb'))) return `no initdb in ${BIN} (set PG_BIN)`;
  return undefined;
}

export async function createOwnCluster(): Promise<OwnCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'agentrun-pg-'));
  const data = join(dir, 'data');
  const port = await freePort();
  // initdb and postgres refuse to run as root: run them as the postgres user then.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    chmodSync(dir, 0o777);
    execFileSync('chown', ['postgres', dir]);
  }
  const run = (command: string, args: string[]) =>
    execFileSync(asRoot ? 'runuser' : join(BIN, command), asRoot ? ['-u', 'postgres', '--', join(BIN, command), ...args] : args, {
      stdio: 'pipe',
      timeout: 60_000,
    });
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  let running = false;
  const cluster: OwnCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: () => {
      if (!running) run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '30', 'start']);
      running = true;
    },
    stop: () => {
      if (running) run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop']);
      running = false;
    },
    destroy: () => {
      try {
        cluster.stop();
      } catch {
        // it did not stop: the folder goes anyway
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  cluster.start();
  return cluster;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
