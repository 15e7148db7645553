import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ModelApi } from './api.js';
import { type Step, stepAt } from './script.js';

/**
 * The scripted model server the harness tests run on 127.0.0.1 (docs/harnesses.md, "Testing"):
 * only the endpoints the real CLIs call, answered from a script (script.ts), every request kept.
 */
export interface ModelServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** How it misbehaves from now on: answer garbage (200, not the API's format) or 500s; `undefined` to behave. */
  fault: 'garbage' | 'error' | undefined;
  close(): Promise<void>;
}

export interface RecordedRequest {
  api: ModelApi['name'] | 'unknown';
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** When its headers arrived (Date.now(): the clock run events are stamped with), for the harness bench. */
  receivedAt: number;
}

/**
 * A step given whatever the turn count, to a request that holds `when` anywhere in its body: a
 * follow-up's answer, for a CLI that starts a new session for it (its history counts no turns).
 */
export interface ScriptRule {
  when: string;
  step: Step;
}

export async function startModelServer(
  apis: readonly ModelApi[],
  script: readonly Step[],
  rules: readonly ScriptRule[] = [],
): Promise<ModelServer> {
  const requests: RecordedRequest[] = [];
  const state: { fault: ModelServer['fault'] } = { fault: undefined };
  const server = createServer((req, res) => {
    const receivedAt = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = text;
      }
      const url = req.url ?? '/';
      const method = req.method ?? 'GET';
      const api = apis.find((a) => a.matches(method, url));
      requests.push({ api: api?.name ?? 'unknown', method, url, headers: req.headers, body, receivedAt });
      if (state.fault === 'garbage') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('<html>this is not a model</html>\n');
        return;
      }
      if (state.fault === 'error' || !api) {
        res
          .writeHead(api ? 500 : 404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: api ? 'scripted failure' : `no such endpoint: ${method} ${url}` } }));
        return;
      }
      const ruled = rules.find((r) => text.includes(r.when));
      api.respond(ruled?.step ?? stepAt(script, api.turns(body)), { url, body, req }, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get fault() {
      return state.fault;
    },
    set fault(value) {
      state.fault = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
