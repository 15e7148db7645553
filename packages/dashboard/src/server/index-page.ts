/**
 * index.html for one request: the built template with its slots filled. The app reads its
 * configuration from `data-` attributes of `#app` (docs/dashboard.md), never from inline script,
 * so the CSP can forbid inline script outright.
 */
export interface PageConfig {
  /** The dashboard's public path (mount path + base path), e.g. `/agents/dashboard`. */
  basePath: string;
  /** What the client calls, e.g. `http://localhost:8080/agents`. */
  apiBaseUrl: string;
  /** Whether a host auth hook can hand out a key (the app asks it before showing the sign-in form). */
  hostAuth: boolean;
}

export function renderIndex(template: string, config: PageConfig): string {
  const slots: Record<string, string> = {
    base: config.basePath,
    api: config.apiBaseUrl,
    auth: config.hostAuth ? 'host' : 'key',
  };
  return template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => (name in slots ? escapeAttribute(slots[name]!) : whole));
}

const escapeAttribute = (value: string): string =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
