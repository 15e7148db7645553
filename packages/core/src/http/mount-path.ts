/**
 * Where agentrun is mounted in the host app (`/agents` for `app.use('/agents', …)`), for URLs it
 * prints that must work as printed: a webhook's `ingress_url`. Request URLs reach core relative to
 * the mount point, so an adapter that strips a prefix puts it here. A registered symbol, so that
 * separately bundled copies agree on it (docs/embedding.md, "Writing an adapter for another Node framework").
 */
export const MOUNT_PATH = Symbol.for('agentrun.mount-path');

/** The origin the request came to plus the path agentrun is mounted under (no trailing slash). */
export function mountedBase(request: Request, url: URL): string {
  const mount = (request as Request & { [MOUNT_PATH]?: unknown })[MOUNT_PATH];
  const path = typeof mount === 'string' ? mount.replace(/\/+$/, '') : '';
  return url.origin + (path === '' || path.startsWith('/') ? path : `/${path}`);
}
