import { forwardToReal } from './lazy-web-object.js';

/**
 * What an adapter needs to write a response whose body is a string in memory: status, headers
 * and the text. Writing these directly skips the Web stream a `Response` body would be read
 * through, which costs more than everything else about a small JSON reply.
 */
export interface BufferedResponse {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: string;
}

const BUFFERED = Symbol.for('agentrun.buffered-response');

/**
 * A `Response` over a string that builds the real one only when something other than its status
 * is asked for (the pattern of Hono's Node server). Its prototype chain runs through
 * `Response.prototype`, so `instanceof Response` holds, and every member of `Response` is served:
 * `status`, `ok` and friends directly, the rest by the real response, made on first use. Once
 * made, the real one is the truth (its headers may have been changed, its body read), and the
 * buffered form is no longer offered.
 */
class TextResponse {
  readonly status: number;
  [BUFFERED]: BufferedResponse | undefined;
  #real: Response | undefined;

  constructor(body: string, status: number, headers: Record<string, string>) {
    this.status = status;
    this[BUFFERED] = { status, headers, body };
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }
  get statusText(): string {
    return '';
  }
  get type(): ResponseType {
    return 'default';
  }
  get url(): string {
    return '';
  }
  get redirected(): boolean {
    return false;
  }

  /** The real `Response`, made on first use from the buffered form. */
  real(): Response {
    if (this.#real === undefined) {
      const buffered = this[BUFFERED] as BufferedResponse;
      this.#real = new Response(buffered.body, { status: buffered.status, headers: buffered.headers });
      this[BUFFERED] = undefined;
    }
    return this.#real;
  }
}

// Every other member of Response (headers, body, bodyUsed, text(), json(), clone(), …) goes to the real one.
forwardToReal(TextResponse, Response);

/** A `Response` with a string body (and these headers), cheap to make and to write. */
export const textResponse = (body: string, status: number, headers: Record<string, string>): Response =>
  new TextResponse(body, status, headers) as unknown as Response;

/**
 * The buffered form of a response made by `textResponse`, while nothing has touched its headers
 * or body; `undefined` for any other response, which adapters then write as a Web `Response`.
 * (Keyed by a registered symbol, so two copies of this package still recognise each other's.)
 */
export const bufferedResponse = (response: Response): BufferedResponse | undefined =>
  (response as unknown as { [BUFFERED]?: BufferedResponse })[BUFFERED];
