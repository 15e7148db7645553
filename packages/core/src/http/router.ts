import { AgentRunError, invalidRequest } from '../errors.js';

/** A tiny method + path router: literal segments and `:params`, matched segment by segment. */
export type RouteHandler<C> = (ctx: C, params: Record<string, string>) => Promise<Response>;

interface Route<C> {
  method: string;
  segments: string[];
  handler: RouteHandler<C>;
}

export type RouteMatch<C> =
  | { kind: 'found'; handler: RouteHandler<C>; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: string[] }
  | { kind: 'not_found' };

export class Router<C> {
  private readonly routes: Route<C>[] = [];

  on(method: string, path: string, handler: RouteHandler<C>): this {
    this.routes.push({ method, segments: split(path), handler });
    return this;
  }

  match(method: string, pathname: string): RouteMatch<C> {
    const parts = split(pathname);
    const allow = new Set<string>();
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      // HEAD is GET without the body (RFC 9110 §9.3.2); the caller drops the body.
      if (route.method === method || (method === 'HEAD' && route.method === 'GET'))
        return { kind: 'found', handler: route.handler, params };
      allow.add(route.method);
      if (route.method === 'GET') allow.add('HEAD');
    }
    return allow.size > 0 ? { kind: 'method_not_allowed', allow: [...allow] } : { kind: 'not_found' };
  }
}

const split = (path: string) => path.split('/').filter((s) => s !== '');

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as string;
    const part = parts[i] as string;
    if (p.startsWith(':')) params[p.slice(1)] = decodeSegment(part);
    else if (p !== part) return undefined;
  }
  return params;
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
