import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirectoryInUseError, lockDataDirectory } from '../src/data-directory-lock.js';

// The lock of a data directory within one process (a holder in another process, and one killed
// with SIGKILL, are in processes.test.ts). No PGlite here: the lock alone.

const root = mkdtempSync(join(tmpdir(), 'agentrun-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => {
  const dir = join(root, `d${++dirs}`);
  mkdirSync(dir);
  return dir;
};
const sockets = (dir: string) => readdirSync(join(dir, 'lock'));

/** A socket in the lock directory, put there as a holder puts its own; `answer` is what it says when asked. */
async function socketIn(dir: string, name: string, answer: string): Promise<Server> {
  mkdirSync(join(dir, 'lock'), { recursive: true });
  const server = createServer((socket) => socket.end(answer));
  await new Promise<void>((resolve) => server.listen(join(dir, 'lock', `${name}.new`), resolve));
  renameSync(join(dir, 'lock', `${name}.new`), join(dir, 'lock', `${name}.sock`));
  return server;
}

describe('the data directory lock', () => {
  it('is refused to a second taker while held, naming the holder, and taken again once released', async () => {
    const dir = freshDir();
    const held = await lockDataDirectory(dir, './shown');
    const refused = await lockDataDirectory(dir, './shown').catch((error) => error);
    expect(refused).toBeInstanceOf(DataDirectoryInUseError);
    expect(refused.holder).toEqual({ pid: process.pid, startedAt: expect.any(String) });
    expect(Date.parse(refused.holder.startedAt)).toBeLessThanOrEqual(Date.now());
    expect(refused.message).toBe(
      `./shown is in use by this process (pid ${process.pid}: another store is open on it); stop it, or set AGENTRUN_DATA_DIR to another directory`,
    );
    // The refused taker left nothing behind.
    expect(sockets(dir)).toHaveLength(1);

    await held.release();
    await held.release();
    expect(sockets(dir)).toEqual([]);
    const again = await lockDataDirectory(dir);
    await again.release();
  });

  it('names another process by the pid and start it gives', async () => {
    const dir = freshDir();
    const other = await socketIn(dir, 'a', JSON.stringify({ pid: 424242, startedAt: '2026-01-01T00:00:00.000Z', holding: true }));
    try {
      const refused = await lockDataDirectory(dir).catch((error) => error);
      expect(refused).toBeInstanceOf(DataDirectoryInUseError);
      expect(refused.message).toBe(
        `${dir} is in use by process 424242 (started 2026-01-01T00:00:00.000Z); stop it, or set AGENTRUN_DATA_DIR to another directory`,
      );
    } finally {
      other.close();
    }
  });

  it('counts a socket that answers without saying who it is as a holder', async () => {
    const dir = freshDir();
    const other = await socketIn(dir, 'a', 'not a holder of ours');
    try {
      const refused = await lockDataDirectory(dir).catch((error) => error);
      expect(refused).toBeInstanceOf(DataDirectoryInUseError);
      expect(refused.holder).toBeUndefined();
      expect(refused.message).toContain('is in use by another process (it did not say which)');
    } finally {
      other.close();
    }
  });

  it('is not kept by the socket of a holder that is gone, which is removed', async () => {
    const dir = freshDir();
    // Closed under another name, as a killed process leaves it: the file stays, nobody listens.
    const gone = await socketIn(dir, 'dead', '');
    await new Promise((resolve) => gone.close(resolve));
    expect(sockets(dir)).toEqual(['dead.sock']);

    const held = await lockDataDirectory(dir);
    expect(sockets(dir)).toHaveLength(1);
    expect(sockets(dir)).not.toContain('dead.sock');
    await held.release();
  });

  it('goes to exactly one of several takers starting at the same moment', async () => {
    for (let round = 0; round < 5; round++) {
      const dir = freshDir();
      const takers = await Promise.allSettled(Array.from({ length: 6 }, () => lockDataDirectory(dir)));
      const held = takers.filter((t) => t.status === 'fulfilled');
      const refused = takers.filter((t): t is PromiseRejectedResult => t.status === 'rejected');
      expect(held).toHaveLength(1);
      for (const r of refused) expect(r.reason).toBeInstanceOf(DataDirectoryInUseError);
      expect(sockets(dir)).toHaveLength(1);
      await (held[0] as PromiseFulfilledResult<{ release(): Promise<void> }>).value.release();
    }
  });

  it('says so when the directory is too deep for a socket address', async () => {
    const deep = join(root, 'x'.repeat(120));
    mkdirSync(deep);
    await expect(lockDataDirectory(deep)).rejects.toThrow(/too long for its lock .*choose a shorter one/);
  });
});
