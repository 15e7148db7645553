import { isAbsolute } from 'node:path';
import { RepositoryError } from '@agentrun/core';

/**
 * The one decider of which repository URLs git may be given (docs/repositories.md, "The git
 * layer"): `https://`, `http://` (for tests and local servers), `file://` and absolute paths. Every
 * other transport (`ext::`, `ssh://`, `git://`, `fd::`, scp-like `host:path`) is refused here, and
 * again by git itself through `GIT_ALLOW_PROTOCOL`. A URL with a user name or password is refused:
 * a credential travels as a header, never in a URL that git may print or store.
 */
export function checkRepositoryUrl(url: string): string {
  const refuse = (why: string): never => {
    // The URL as told leaves out whatever stands before an `@` after `//`: a user name or password a caller put there.
    const shown = url.replace(/\/\/[^/]*@/, '//[redacted]@').slice(0, 200);
    throw new RepositoryError('invalid', `repository URL ${JSON.stringify(shown)} is refused: ${why}`);
  };
  if (url.length === 0 || url.length > 2048) refuse('it must have 1 to 2048 characters');
  // Control characters and spaces: nothing git needs, and a newline could forge a log line.
  if (/[\u0000-\u0020\u007f]/.test(url)) refuse('it holds a space or a control character');
  if (url.startsWith('/')) {
    if (!isAbsolute(url) || url.split('/').includes('..')) refuse('a path must be absolute, without `..`');
    return url;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse('it is neither an absolute path nor a URL');
  }
  if (!['https:', 'http:', 'file:'].includes(parsed.protocol)) refuse('only https://, http://, file:// and absolute paths are read');
  if (parsed.username !== '' || parsed.password !== '') refuse('a credential goes in the repository credential, never in the URL');
  if (parsed.protocol === 'file:' && parsed.host !== '') refuse('a file:// URL names no host');
  if (parsed.protocol !== 'file:' && parsed.hostname === '') refuse('it names no host');
  return url;
}
