/**
 * What the server put on `#app` (src/server/index-page.ts): read once at start, never from inline
 * script (docs/dashboard.md, "Security").
 */
export interface AppConfig {
  /** The dashboard's public path, e.g. `/dashboard`; client-side routes live under it. */
  basePath: string;
  /** The client's `baseURL`. */
  apiBase: string;
  /** `host`: ask the host's auth hook for a key before showing the sign-in form. */
  auth: 'host' | 'key';
}

export function readConfig(root: HTMLElement): AppConfig {
  const { basePath = '/dashboard', apiBase = location.origin, auth } = root.dataset;
  return { basePath: basePath.replace(/\/+$/, ''), apiBase, auth: auth === 'host' ? 'host' : 'key' };
}
