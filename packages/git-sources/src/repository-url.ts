import { lstat, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { RepositoryError } from '@agentrun/core';

/** Which repository URLs a reader takes (docs/repositories.md, "URLs"). */
export interface UrlPolicy {
  /** Absolute paths and `file://` URLs on this host. Default false: remote URLs only. */
  allowLocalPaths?: boolean;
  /** The reader's cache: a local path into it is refused whatever `allowLocalPaths` says. */
  cacheDir?: string;
}

/**
 * The one decider of which repository URLs git may be given (docs/repositories.md, "URLs"):
 * `https://` and `http://` (for tests and local servers); `file://` and absolute paths only where
 * `allowLocalPaths` lets them, and never one into the cache, even through a symbolic link (another
 * team's fetched objects are there). Every other transport (`ext::`, `ssh://`, `git://`, `fd::`,
 * scp-like `host:path`) is refused here, and again by git itself through `GIT_ALLOW_PROTOCOL`. A
 * URL with a user name or password is refused: a credential travels as a header, never in a URL
 * that git may print or store. Answers the URL as given, or throws `RepositoryError('invalid')`.
 */
export async function checkRepositoryUrl(url: string, policy: UrlPolicy = {}): Promise<string> {
  const path = localPath(url);
  if (path === undefined) return url;
  if (policy.allowLocalPaths !== true) {
    refuse(url, 'this server reads remote repositories only (https://, http://); local paths are off (allowLocalPaths)');
  }
  if (policy.cacheDir !== undefined && (await reachesInto(path, policy.cacheDir))) refuse(url, "it is a path into the server's git cache");
  return url;
}

const refuse = (url: string, why: string): never => {
  // The URL as told leaves out whatever stands before an `@` after `//`: a user name or password a caller put there.
  const shown = url.replace(/\/\/[^/]*@/, '//[redacted]@').slice(0, 200);
  throw new RepositoryError('invalid', `repository URL ${JSON.stringify(shown)} is refused: ${why}`);
};

/** The form alone: the path on this host a local URL names, `undefined` for an `https://` or `http://` URL. */
function localPath(url: string): string | undefined {
  if (url.length === 0 || url.length > 2048) refuse(url, 'it must have 1 to 2048 characters');
  // Control characters and spaces: nothing git needs, and a newline could forge a log line.
  if (/[\u0000-\u0020\u007f]/.test(url)) refuse(url, 'it holds a space or a control character');
  if (url.startsWith('/')) return absolutePath(url, url);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse(url, 'it is neither an absolute path nor a URL');
  }
  if (!['https:', 'http:', 'file:'].includes(parsed.protocol)) refuse(url, 'only https://, http://, file:// and absolute paths are read');
  if (parsed.username !== '' || parsed.password !== '') refuse(url, 'a credential goes in the repository credential, never in the URL');
  if (parsed.protocol !== 'file:') {
    if (parsed.hostname === '') refuse(url, 'it names no host');
    return undefined;
  }
  // git reads a file:// URL's path as written (no decoding, no normalizing), so it is checked as written.
  if (!url.startsWith('file:///')) refuse(url, 'a file:// URL names no host');
  const written = url.slice('file://'.length);
  if (/[%?#]/.test(written)) refuse(url, 'a file:// URL holds no %, ? or #');
  return absolutePath(url, written);
}

function absolutePath(url: string, path: string): string {
  if (!isAbsolute(path) || path.split('/').includes('..')) refuse(url, 'a path must be absolute, without `..`');
  return path;
}

/**
 * Whether git, given `path`, could read a repository inside `dir`: git tries `path`, `path/.git`,
 * `path.git` and `path.git/.git`, each compared as written and after following symbolic links.
 */
async function reachesInto(path: string, dir: string): Promise<boolean> {
  const roots = [resolve(dir), await resolvedPath(resolve(dir))];
  const tries = [path, join(path, '.git'), `${path}.git`, join(`${path}.git`, '.git')];
  for (const tried of tries) {
    for (const candidate of [resolve(tried), await resolvedPath(resolve(tried))]) {
      if (roots.some((root) => isWithin(candidate, root))) return true;
    }
  }
  return false;
}

const isWithin = (path: string, root: string): boolean => {
  const rest = relative(root, path);
  return rest === '' || (rest !== '..' && !rest.startsWith('../') && !isAbsolute(rest));
};

/**
 * `path` with every symbolic link followed, a dangling one too (its target may be made later);
 * a missing tail is appended to its resolved parent. Gives up after as many links as the kernel does.
 */
async function resolvedPath(path: string, links = 0): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    if (links > 40) return path;
    const stats = await lstat(path).catch(() => undefined);
    if (stats?.isSymbolicLink()) return resolvedPath(resolve(dirname(path), await readlink(path)), links + 1);
    const parent = dirname(path);
    if (parent === path) return path;
    return join(await resolvedPath(parent, links), basename(path));
  }
}
