import type { Stats } from 'node:fs';
import { mkdirSync, statSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/**
 * The cache's own directory (docs/repositories.md, "The cache"): it holds every team's fetched
 * objects, so it belongs to the server's user and no one else may write there (a directory another
 * user made first, or one in a shared writable place, could be swapped or filled by them). Made
 * with mode 0700 when missing.
 */

/** `$XDG_CACHE_HOME/agentrun/git`, else `~/.cache/agentrun/git`: the user's own, never a shared temporary place. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), '.cache'), 'agentrun', 'git');
}

/** Makes the cache directory (0700) when missing and checks it, before any use: an Error says what is wrong. */
export function prepareCacheDirSync(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  refuseForeign(dir, statSync(dir));
}

/** The same, on every use: a directory removed while the server runs is made again, and checked again. */
export async function prepareCacheDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  refuseForeign(dir, await stat(dir));
}

function refuseForeign(dir: string, stats: Stats): void {
  const where = `the git cache directory ${resolve(dir)}`;
  if (!stats.isDirectory()) throw new Error(`${where} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) {
    throw new Error(
      `${where} belongs to user ${stats.uid}, not to this server's user ${uid}: choose another cacheDir (docs/repositories.md, "The cache")`,
    );
  }
  if ((stats.mode & 0o022) !== 0) {
    throw new Error(
      `${where} is writable by its group or by everyone (mode ${(stats.mode & 0o777).toString(8)}): chmod 700 it or choose another cacheDir (docs/repositories.md, "The cache")`,
    );
  }
}
