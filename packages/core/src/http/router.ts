import { AgentRunError, invalidRequest } from '../errors.js';
import { fullPath, type RouteSpec } from '../routes/route.js';

/**
 * Matches a method and path against a route table (routes/table.ts): literal segments and
 * `{params}`, segment by segment. Params come back as sent (percent-encoded); the caller decodes
 * them, because the API answers a bad encoding with a 400 and the ingress with a 404.
 */
type RouteMatch<K extends string> =
  | { kind: 'found'; operation: K; spec: RouteSpec; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: string[] }
  | { kind: 'not_found' };

export interface Router<K extends string> {
  match(method: string, pathname: string): RouteMatch<K>;
}

interface CompiledRoute<K extends string> {
  operation: K;
  spec: RouteSpec;
  /** Literal segments as strings; a param as `{ name }`. */
  segments: (string | { name: string })[];
}

export function createRouter<T extends Record<string, RouteSpec>>(table: T): Router<keyof T & string> {
  type K = keyof T & string;
  // Grouped by segment count: a path is compared only with routes as long as it (the ingress's
  // two routes share their length with a handful of others), in table order within a group.
  const byLength = new Map<number, CompiledRoute<K>[]>();
  for (const [operation, spec] of Object.entries(table)) {
    const segments = split(fullPath(spec)).map((s) => (s.startsWith('{') && s.endsWith('}') ? { name: s.slice(1, -1) } : s));
    const group = byLength.get(segments.length) ?? [];
    group.push({ operation: operation as K, spec, segments });
    byLength.set(segments.length, group);
  }
  return {
    match(method, pathname) {
      const parts = split(pathname);
      const allow = new Set<string>();
      for (const route of byLength.get(parts.length) ?? []) {
        const params = matchSegments(route.segments, parts);
        if (!params) continue;
        // HEAD is GET without the body (RFC 9110 §9.3.2); the caller drops the body.
        if (route.spec.method === method || (method === 'HEAD' && route.spec.method === 'GET')) {
          return { kind: 'found', operation: route.operation, spec: route.spec, params };
        }
        allow.add(route.spec.method);
        if (route.spec.method === 'GET') allow.add('HEAD');
      }
      return allow.size > 0 ? { kind: 'method_not_allowed', allow: [...allow] } : { kind: 'not_found' };
    },
  };
}

const split = (path: string) => path.split('/').filter((s) => s !== '');

function matchSegments(pattern: CompiledRoute<string>['segments'], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as CompiledRoute<string>['segments'][number];
    const part = parts[i] as string;
    if (typeof p === 'string') {
      if (p !== part) return undefined;
    } else params[p.name] = part;
  }
  return params;
}

/** Decode a route's params for the API: a bad encoding or a NUL is the caller's 400. */
export function decodeParams(params: Record<string, string>): Record<string, string> {
  const decoded: Record<string, string> = {};
  for (const [name, segment] of Object.entries(params)) decoded[name] = decodeSegment(segment);
  return decoded;
}

function decodeSegment(segment: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    throw invalidRequest('the URL path is not valid percent-encoding');
  }
  if (decoded.includes('\u0000')) throw invalidRequest('the URL path must not contain the NUL character');
  return decoded;
}

export const methodNotAllowed = (allow: string[]) =>
  new AgentRunError('method_not_allowed', `use ${allow.join(' or ')} on this path`, { headers: { allow: allow.join(', ') } });
