import type { IncomingMessage } from 'node:http';
import { forwardToReal } from '@agentrun/core/internal';
import { toWebHeaders } from './headers.js';

/** A header name `Headers.get` accepts (RFC 9110 token); any other is left to the real one to refuse. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/** HTTP whitespace `Headers` strips from both ends of a value (fetch's "normalize"). */
const isHttpSpace = (code: number) => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;

function normalize(value: string): string {
  if (value.length === 0) return value;
  if (!isHttpSpace(value.charCodeAt(0)) && !isHttpSpace(value.charCodeAt(value.length - 1))) return value;
  let start = 0;
  let end = value.length;
  while (start < end && isHttpSpace(value.charCodeAt(start))) start++;
  while (end > start && isHttpSpace(value.charCodeAt(end - 1))) end--;
  return value.slice(start, end);
}

/**
 * The request's headers as a Web `Headers` that is made only when something needs more than
 * `get`: core reads a handful of headers per request (`x-request-id`, `authorization`,
 * `content-type`, a signature), and filling undici's `Headers` from every raw header costs more
 * than all of those reads (bench/README.md, "What was tried"). `get` answers from
 * `rawHeaders` exactly as `toWebHeaders` would (repeats joined with `, `, `cookie` with `; `,
 * values trimmed of HTTP whitespace); every other member goes to the real `Headers`, and
 * `instanceof Headers` holds.
 */
export class NodeHeaders {
  readonly #req: IncomingMessage;
  #real: Headers | undefined;

  constructor(req: IncomingMessage) {
    this.#req = req;
  }

  get(name: string): string | null {
    if (this.#real !== undefined || !TOKEN.test(name)) return this.real().get(name);
    const wanted = name.toLowerCase();
    const raw = this.#req.rawHeaders;
    let found: string | null = null;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const field = raw[i] as string;
      if (field.length !== wanted.length || field.toLowerCase() !== wanted) continue;
      const value = normalize(raw[i + 1] as string);
      found = found === null ? value : `${found}${wanted === 'cookie' ? '; ' : ', '}${value}`;
    }
    return found;
  }

  /** The real `Headers`, made on first use of anything but `get`. */
  real(): Headers {
    this.#real ??= toWebHeaders(this.#req);
    return this.#real;
  }

  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.real()[Symbol.iterator]();
  }

  /** `util.inspect` (a logged request) shows the real headers. */
  [INSPECT](...args: unknown[]): unknown {
    const real = this.real() as unknown as Record<symbol, (...a: unknown[]) => unknown>;
    return real[INSPECT]?.(...args) ?? real;
  }
}

// Every other member of Headers (has, entries, forEach, getSetCookie, …) goes to the real one.
forwardToReal(NodeHeaders, Headers);
