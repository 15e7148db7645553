import { fakeSkillRepositories, testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import { expect } from 'vitest';
import { createApiKey } from '../src/auth/api-keys.js';
import type { Principal } from '../src/auth/principal.js';
import { type AgentRunHandler, type AgentRunHandlerOptions, createAgentRunHandler } from '../src/http/handler.js';
import type { RunState } from '../src/models/run-state.js';
import type { RunService } from '../src/run/run-service.js';
import type { RunEventType } from '../src/run/state-machine.js';
import type { Store } from '../src/store/store.js';
import type { Clock } from '../src/util/clock.js';

export const BASE = 'http://agentrun.test/api/v1';
export const T0 = Date.UTC(2026, 0, 1);

/** A clock tests move by hand. With `step`, every reading advances it (strictly monotonic). */
export interface ManualClock extends Clock {
  set(ms: number): void;
  advance(ms: number): void;
}

export function manualClock(start = T0, step = 0): ManualClock {
  let t = start;
  return {
    now: () => {
      const value = t;
      t += step;
      return value;
    },
    set: (ms) => {
      t = ms;
    },
    advance: (ms) => {
      t += ms;
    },
  };
}

interface CallOptions {
  body?: unknown;
  /** Sent as is instead of JSON-encoding `body`. */
  raw?: BodyInit;
  headers?: Record<string, string>;
  /** API key to send; `null` sends no Authorization header. Default: the setup's key. */
  key?: string | null;
}

export interface Harness {
  store: Store;
  handler: AgentRunHandler;
  clock: ManualClock;
  principal: Principal;
  key: string;
  errors: unknown[];
  /** Mint a key for another principal. */
  keyFor(principal: Principal): Promise<string>;
  /** Evaluate every accepted delivery now (their runs are made after the 202, docs/webhooks.md "When runs start"). */
  evaluated(): Promise<number>;
  call(method: string, path: string, options?: CallOptions): Promise<Response>;
  /** `call` and parse the JSON answer. */
  json<T = unknown>(method: string, path: string, options?: CallOptions): Promise<{ status: number; body: T; res: Response }>;
}

export async function setup(
  options: Partial<AgentRunHandlerOptions> & { clock?: ManualClock; skills?: readonly string[] } = {},
): Promise<Harness> {
  const { skills: skillSpecs, ...rest } = options;
  const store = options.store ?? createMemoryStore();
  const clock = options.clock ?? manualClock();
  const errors: unknown[] = [];
  // Skills the runs name resolve against fake repositories registered for the test team.
  const skills = skillSpecs ? fakeSkillRepositories(skillSpecs) : undefined;
  const handler = createAgentRunHandler({
    onError: (error) => errors.push(error),
    ...(skills ? { repositories: skills.reader } : {}),
    ...rest,
    store,
    clock,
  });
  const principal = testPrincipal();
  await skills?.register(store, principal.team_uid);
  const key = await createApiKey(store.apiKeys, principal);
  const call = (method: string, path: string, o: CallOptions = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    const key = o.key === undefined ? harness.key : o.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body: BodyInit | undefined = o.raw;
    if (body === undefined && o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const init: RequestInit & { duplex?: 'half' } = { method, headers };
    if (body !== undefined) init.body = body;
    if (body instanceof ReadableStream) init.duplex = 'half';
    return handler(new Request(path.startsWith('http') ? path : BASE + path, init));
  };
  const harness: Harness = {
    store,
    handler,
    clock,
    principal,
    key,
    errors,
    keyFor: (p) => createApiKey(store.apiKeys, p),
    evaluated: () => handler.app.evaluator.drain(),
    call,
    json: async <T>(method: string, path: string, o?: CallOptions) => {
      const res = await call(method, path, o);
      const text = await res.text();
      return { status: res.status, body: (text === '' ? undefined : JSON.parse(text)) as T, res };
    },
  };
  return harness;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  error: string;
  detail: string;
  retryable?: boolean;
  errors?: { path: string; detail: string }[];
}

/** Assert `res` is an RFC 9457 problem with this status (and code), and return its body. */
export async function expectProblem(res: Response, status: number, error?: string): Promise<Problem> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await res.json()) as Problem;
  expect(body).toMatchObject({ status, type: expect.any(String), title: expect.any(String), error: expect.any(String) });
  expect(typeof body.detail).toBe('string');
  expect(body.error).toMatch(/^[a-z]+(_[a-z]+)*$/);
  if (error !== undefined) expect(body.error).toBe(error);
  return body;
}

export const b64 = (bytes: Uint8Array | string): string =>
  Buffer.from(typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes).toString('base64');

/** Events that take a fresh run from QUEUED to each state through the service. */
const PATH_TO: Record<RunState, readonly RunEventType[]> = {
  QUEUED: [],
  CLAIMED: ['claim'],
  PENDING: ['claim', 'prepare'],
  INPROGRESS: ['claim', 'start'],
  BLOCKED: ['claim', 'start', 'block'],
  SUCCEEDED: ['claim', 'start', 'succeed'],
  FAILED: ['claim', 'start', 'fail'],
  ERROR: ['claim', 'error'],
  CANCELLED: ['cancel'],
};

/** Move a run to `state` through `RunService.applyEvent`. */
export async function driveTo(service: RunService, runId: string, state: RunState): Promise<void> {
  for (const type of PATH_TO[state]) {
    const result = await service.applyEvent(runId, { type });
    if (result.kind !== 'applied') throw new Error(`could not apply ${type} to run ${runId}: ${result.kind}`);
  }
}
