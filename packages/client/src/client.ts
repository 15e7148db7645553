import { APIConnectionError, APIConnectionTimeoutError, APIResponseError, APIUserAbortError, errorForStatus } from './errors.js';
import { type BodyOf, type ClientOperationId, OPERATIONS, type ParamsOf, type QueryOf, type ResponseOf } from './operations.js';
import {
  AgentIdentities,
  Agents,
  ApiKeys,
  Artifacts,
  Audit,
  Automations,
  Callbacks,
  Deliveries,
  Environments,
  Factories,
  Repositories,
  Runs,
  Schedules,
  Secrets,
  Sources,
  Stats,
  Webhooks,
  Workers,
} from './resources.js';
import { retryDelayMs, shouldRetry } from './retry.js';
import { sleep } from './sleep.js';

/** The `fetch` the client calls: the global one unless given (tests, proxies, instrumentation). */
export type Fetch = (input: string, init: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** The API key, sent as `Authorization: Bearer …`. */
  apiKey: string;
  /**
   * Where agentrun is mounted, e.g. `https://agents.example.com` (the client adds `/api/v1/…`). A
   * URL ending in `/api/v1`, as the published `oz-agent-sdk` clients take it, is taken back to
   * the mount (`AgentRunClient#baseURL` shows it).
   */
  baseURL: string;
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number;
  /** Per attempt. Default 60 000 ms. */
  timeoutMs?: number;
  fetch?: Fetch;
  /**
   * Called with every JSON answer of a success status before it is returned; throws (an
   * `APIResponseError`, say) to refuse one of the wrong shape. The client carries no schemas
   * (operations.ts), so a caller that has core's, as the command line does, checks with them.
   */
  checkAnswer?: AnswerCheck;
}

/** See `ClientOptions.checkAnswer`. */
export type AnswerCheck = (operationId: ClientOperationId, status: number, body: unknown) => void;

/** Per-call options of any operation. */
export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
  /** For a POST: kept across its retries; one is generated when absent. */
  idempotencyKey?: string;
  /** Sent beside the client's own headers (which `authorization` cannot be replaced through). */
  headers?: Record<string, string>;
}

/** A field that is absent when the operation has none, optional when all its members are, else required. */
type Has<Field extends string, V> = [V] extends [never]
  ? { [F in Field]?: never }
  : Record<string, never> extends V
    ? { [F in Field]?: V }
    : { [F in Field]: V };

/** What `request()` takes for an operation: its path params, query and body as the table types them. */
export type RequestArgs<K extends ClientOperationId> = RequestOptions &
  Has<'params', keyof ParamsOf<K> extends never ? never : ParamsOf<K>> &
  Has<'query', QueryOf<K>> &
  Has<'body', BodyOf<K>>;

/**
 * The agentrun client (docs/client.md). `request()` calls any operation of the route table; the
 * resources (`runs`, `artifacts`, `factories`, `secrets`, `apiKeys`, `webhooks`, `automations`, `deliveries`, `audit`, `environments`, `agentIdentities`, `sources`, `schedules`, `callbacks`) are thin
 * methods over it.
 */
export class AgentRunClient {
  readonly baseURL: string;
  readonly maxRetries: number;
  readonly timeoutMs: number;
  readonly #apiKey: string;
  readonly #fetch: Fetch;
  readonly #checkAnswer: AnswerCheck | undefined;

  readonly runs: Runs = new Runs(this);
  readonly artifacts: Artifacts = new Artifacts(this);
  readonly factories: Factories = new Factories(this);
  readonly secrets: Secrets = new Secrets(this);
  readonly apiKeys: ApiKeys = new ApiKeys(this);
  readonly webhooks: Webhooks = new Webhooks(this);
  readonly automations: Automations = new Automations(this);
  readonly deliveries: Deliveries = new Deliveries(this);
  readonly audit: Audit = new Audit(this);
  readonly repositories: Repositories = new Repositories(this);
  readonly agents: Agents = new Agents(this);
  readonly agentIdentities: AgentIdentities = new AgentIdentities(this);
  readonly environments: Environments = new Environments(this);
  readonly callbacks: Callbacks = new Callbacks(this);
  readonly sources: Sources = new Sources(this);
  readonly schedules: Schedules = new Schedules(this);
  readonly workers: Workers = new Workers(this);
  readonly stats: Stats = new Stats(this);

  constructor(options: ClientOptions) {
    if (!options.apiKey) throw new TypeError('AgentRunClient: apiKey is required');
    if (!options.baseURL) throw new TypeError('AgentRunClient: baseURL is required');
    this.#apiKey = options.apiKey;
    this.baseURL = mountURL(options.baseURL);
    this.maxRetries = options.maxRetries ?? 2;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#checkAnswer = options.checkAnswer;
  }

  /** Call one operation of the route table by its operation ID. */
  async request<K extends ClientOperationId>(operationId: K, args: RequestArgs<K> = {} as RequestArgs<K>): Promise<ResponseOf<K>> {
    const response = await this.requestResponse(operationId, args);
    const { content } = OPERATIONS[operationId];
    const body = await readBody(operationId, response, content);
    if (content === 'json') this.#checkAnswer?.(operationId, response.status, body);
    return body as ResponseOf<K>;
  }

  /**
   * Call an operation and answer its successful `Response` unread (retries, timeouts and error
   * classes as for `request()`), for an answer read as it comes, such as the run events' SSE
   * stream (its `headers` option sets `accept` and `last-event-id`). The timeout bounds the wait for the answer's headers only; `signal` ends the body's reading too.
   */
  async requestResponse<K extends ClientOperationId>(operationId: K, args: RequestArgs<K> = {} as RequestArgs<K>): Promise<Response> {
    const operation = OPERATIONS[operationId];
    const { params, query, body } = args as { params?: Record<string, string>; query?: Record<string, unknown>; body?: unknown };
    const url = this.baseURL + fillPath(operation.path, params) + queryString(query);
    const headers: Record<string, string> = { accept: 'application/json', ...args.headers, authorization: `Bearer ${this.#apiKey}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (operation.method === 'POST') headers['idempotency-key'] = args.idempotencyKey ?? crypto.randomUUID();
    const init: RequestInit = { method: operation.method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
    return this.#send(url, init, args, args.maxRetries ?? this.maxRetries);
  }

  async #send(url: string, init: RequestInit, options: RequestOptions, maxRetries: number): Promise<Response> {
    for (let retriesLeft = maxRetries; ; retriesLeft--) {
      const outcome = await this.#attempt(url, init, options);
      if (outcome instanceof Response) {
        if (outcome.ok) return outcome;
        if (retriesLeft > 0 && shouldRetry(outcome.status, outcome.headers)) {
          await outcome.body?.cancel();
          await sleep(retryDelayMs(retriesLeft, maxRetries, outcome.headers), options.signal);
          continue;
        }
        throw errorForStatus(outcome.status, outcome.headers, await readError(outcome));
      }
      if (outcome instanceof APIUserAbortError || retriesLeft <= 0) throw outcome;
      await sleep(retryDelayMs(retriesLeft, maxRetries, undefined), options.signal);
    }
  }

  /** One attempt: the answer, or the error that stood for none. */
  async #attempt(url: string, init: RequestInit, options: RequestOptions): Promise<Response | Error> {
    if (options.signal?.aborted) return new APIUserAbortError();
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), options.timeoutMs ?? this.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
    try {
      return await this.#fetch(url, { ...init, signal });
    } catch (cause) {
      if (options.signal?.aborted) return new APIUserAbortError();
      if (timeout.signal.aborted) return new APIConnectionTimeoutError();
      return new APIConnectionError(undefined, { cause });
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * Where agentrun is mounted: `baseURL` without trailing slashes and without a final `/api/v1`
 * (docs/client.md, "Install and construct"), so the operations' `/api/v1/…` paths are not doubled.
 * Not when `/api/v1` is the host and path of a URL such as `http://api/v1`.
 */
const mountURL = (baseURL: string): string => baseURL.replace(/\/+$/, '').replace(/(?<!\/)\/api\/v1$/, '');

const fillPath = (path: string, params: Record<string, string> | undefined): string =>
  path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined || value === '') throw new TypeError(`path param ${name} is required`);
    return encodeURIComponent(value);
  });

/** Query values as the server reads them: each array item its own `name=value`, numbers and booleans written out. */
const queryString = (query: Record<string, unknown> | undefined): string => {
  if (!query) return '';
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
};

const readBody = async (operationId: string, response: Response, content: 'json' | 'text' | 'binary' | 'none'): Promise<unknown> => {
  if (content === 'none') {
    await response.body?.cancel();
    return undefined;
  }
  if (content === 'text') return response.text();
  if (content === 'binary') return response.arrayBuffer();
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new APIResponseError(`${operationId}: the answer (HTTP ${response.status}) is not JSON: ${JSON.stringify(text.slice(0, 100))}`);
  }
};

const readError = async (response: Response): Promise<unknown> => {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};
