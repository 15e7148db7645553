import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

// A Host header is only trusted to be `name[:port]` or `[v6]:port`; anything else could move the path.
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]+)(?::\d{1,5})?$/;

/**
 * `protocol://host` of the request. Core only reads the path and query of the URL, but it should
 * still be the URL the client used; `overrides` lets a framework supply proxy-aware values.
 */
export function requestOrigin(req: IncomingMessage, overrides: { protocol?: string; host?: string } = {}): string {
  const encrypted = (req.socket as TLSSocket | undefined)?.encrypted === true;
  const protocol = overrides.protocol === 'https' || overrides.protocol === 'http' ? overrides.protocol : encrypted ? 'https' : 'http';
  const authority = req.headers[':authority'];
  const host = overrides.host ?? req.headers.host ?? (typeof authority === 'string' ? authority : undefined);
  if (host === undefined) return `${protocol}://localhost`;
  const key = protocol === 'https' ? `s${host}` : host;
  let origin = origins.get(key);
  if (origin === undefined) {
    origin = `${protocol}://${host}`;
    if (!HOST.test(host) || !URL.canParse(origin)) origin = `${protocol}://localhost`;
    // A handful of hosts serve a deployment; a client inventing endless ones only restarts the memo.
    if (origins.size >= 256) origins.clear();
    origins.set(key, origin);
  }
  return origin;
}

/** Checked origins by host (prefixed `s` for https): the check costs more than the rest of a request's routing. */
const origins = new Map<string, string>();

/** Split a request target (`/path?query`, or the absolute form a proxy may send) into path and search. */
export function splitTarget(target: string | undefined): { pathname: string; search: string } {
  let value = target ?? '/';
  if (!value.startsWith('/')) {
    try {
      const url = new URL(value);
      value = url.pathname + url.search;
    } catch {
      // `*` (OPTIONS *) or garbage: a path no router owns.
      return { pathname: '', search: '' };
    }
  }
  const q = value.indexOf('?');
  return q === -1 ? { pathname: value, search: '' } : { pathname: value.slice(0, q), search: value.slice(q) };
}

/** `/agents/` → `/agents`, `agents` → `/agents`, `/` → `` (mounted at the root). */
export function normalizeBasePath(basePath: string | undefined): string {
  if (!basePath) return '';
  const trimmed = basePath.replace(/\/+$/, '');
  return trimmed === '' ? '' : trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/**
 * `pathname` relative to `basePath` (normalized), or `undefined` when it lies outside. Segment
 * boundaries count: `/agentsX` is not under `/agents`. Prefix case is ignored when the router
 * that routed the request here ignores it.
 */
export function stripBasePath(pathname: string, basePath: string, options: { caseInsensitive?: boolean } = {}): string | undefined {
  if (basePath === '') return pathname;
  const head = pathname.slice(0, basePath.length);
  const same = options.caseInsensitive ? head.toLowerCase() === basePath.toLowerCase() : head === basePath;
  if (!same) return undefined;
  const rest = pathname.slice(basePath.length);
  if (rest === '') return '/';
  return rest.startsWith('/') ? rest : undefined;
}
