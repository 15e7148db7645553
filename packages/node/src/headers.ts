import type { IncomingMessage } from 'node:http';

/**
 * The request headers as they came off the wire. `rawHeaders` keeps every repeated field (Node's
 * `req.headers` silently drops repeats of fields such as `authorization`), so repeats are joined
 * with `, ` as HTTP allows, except `cookie`, whose fields join with `; ` (RFC 9113 §8.2.3).
 * HTTP/2 pseudo-headers (`:path`, `:authority`, ...) are not headers and are skipped.
 */
export function toWebHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    const value = raw[i + 1] as string;
    if (name.startsWith(':')) continue;
    const cookie = name.toLowerCase() === 'cookie' ? headers.get('cookie') : null;
    if (cookie !== null) headers.set('cookie', `${cookie}; ${value}`);
    else headers.append(name, value);
  }
  return headers;
}

/** Whether the request carries a body: HTTP/1 says so with `Transfer-Encoding` or a non-zero `Content-Length`. */
export function declaresBody(req: IncomingMessage): boolean {
  const length = declaredLength(req);
  if (length !== undefined) return length > 0;
  // HTTP/2 frames a body without either header; only HTTP/1 lets us know there is none.
  return req.headers['transfer-encoding'] !== undefined || req.httpVersionMajor >= 2;
}

/** The `Content-Length` the client declared, when it is a plain number. */
export function declaredLength(req: IncomingMessage): number | undefined {
  const value = req.headers['content-length'];
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}
