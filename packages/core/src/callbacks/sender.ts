import { callbackUrlProblem, isPrivateAddress } from './address-policy.js';

/**
 * How a callback leaves the process (docs/callbacks.md): a port, so core stays on Web APIs. The
 * default is `fetch`; a host on Node gives `resolve` (DNS) so names are checked after resolution.
 */
export interface CallbackRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

/** A response's status, or why none came. */
export type CallbackResponse = { status: number } | { error: string };

export interface CallbackSender {
  send(request: CallbackRequest): Promise<CallbackResponse>;
}

export interface FetchCallbackSenderOptions {
  /** Let callbacks reach private, loopback and link-local addresses (tests, local use). Default false. */
  allowPrivateAddresses?: boolean;
  /** The addresses a host name resolves to (Node: `dns.promises.lookup(name, { all: true })`); checked before sending. */
  resolve?: (hostname: string) => Promise<readonly string[]>;
  fetch?: typeof fetch;
}

/** Of a response, at most this much is read (then the rest is dropped): the status is what counts. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * A sender on `fetch`: no redirect followed (a 3xx is a failure), the timeout covering the whole
 * exchange, at most 64 KiB of the response read. Address checks: the URL's literal host always;
 * every address a name resolves to when `resolve` is given.
 */
export function fetchCallbackSender(options: FetchCallbackSenderOptions = {}): CallbackSender {
  const allowPrivate = options.allowPrivateAddresses ?? false;
  const doFetch = options.fetch ?? globalThis.fetch;
  return {
    async send(request) {
      const problem = callbackUrlProblem(request.url, allowPrivate);
      if (problem) return { error: `refused: the URL ${problem}` };
      const signal = AbortSignal.timeout(request.timeoutMs);
      try {
        if (!allowPrivate && options.resolve) {
          const host = new URL(request.url).hostname;
          const addresses = isPrivateAddress(host) === undefined ? await options.resolve(host) : [host];
          if (addresses.length === 0) return { error: `refused: ${host} resolves to no address` };
          if (addresses.some((a) => isPrivateAddress(a) !== false)) return { error: `refused: ${host} resolves to a private address` };
        }
        const response = await doFetch(request.url, {
          method: 'POST',
          headers: request.headers,
          body: request.body,
          redirect: 'manual',
          signal,
        });
        await drain(response, MAX_RESPONSE_BYTES);
        return { status: response.status };
      } catch (error) {
        if (signal.aborted) return { error: `timeout after ${request.timeoutMs} ms` };
        return { error: error instanceof Error ? error.message.slice(0, 200) : 'request failed' };
      }
    },
  };
}

/** Read up to `limit` bytes of a body and drop the rest, so a connection is freed without reading forever. */
async function drain(response: Response, limit: number): Promise<void> {
  const reader = response.body?.getReader();
  if (!reader) return;
  let read = 0;
  try {
    while (read < limit) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
