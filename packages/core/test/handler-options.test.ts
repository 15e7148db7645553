import { createMemoryStore } from '@agentrun/store-memory';
import { describe, expect, it } from 'vitest';
import { createAgentRunHandler } from '../src/http/handler.js';
import { createAgentRun, createWorker, demoExecutor } from '../src/index.js';

// Options are checked when the handler is made, naming the option (docs/embedding.md,
// "Options of `createAgentRun`").
describe('createAgentRunHandler options', () => {
  const store = createMemoryStore();
  const make = (options: unknown) => () => createAgentRunHandler(options as never);

  it.each([
    [{}, /option store is required/],
    [{ store, maxBodyBytes: '10mb' }, /option maxBodyBytes must be a number/],
    [{ store, maxBodyBytes: 0 }, /option maxBodyBytes must be at least 1/],
    [{ store, webhookBaseURL: 'https://x.example' }, /unknown option webhookBaseURL \(did you mean webhookBaseUrl\?\)/],
    [{ store, webhookBaseUrl: 'hooks.example.com' }, /option webhookBaseUrl must be an absolute URL/],
    [{ store, webhookBaseUrl: 'ftp://hooks.example.com' }, /option webhookBaseUrl must be an http or https URL/],
    [{ store, publicBaseUrl: '/agents' }, /option publicBaseUrl must be an absolute URL/],
    [{ store, publicBaseUrl: 'ftp://agents.example.com' }, /option publicBaseUrl must be an http or https URL/],
    [{ store, dashboardPath: 'dashboard' }, /option dashboardPath must be a path starting with \/ .*, or false/],
    [{ store, dashboardPath: true }, /option dashboardPath must be a path starting with \/ .*, or false/],
    [{ store, onError: 'log' }, /option onError must be a function/],
    [{ store, ingressLimits: { deliveriesPerMinute: 5 } }, /unknown option ingressLimits.deliveriesPerMinute/],
    [{ store, secretKey: 42 }, /option secretKey must be a string/],
    [null, /options must be an object/],
  ])('refuses %j', (options, message) => {
    expect(make(options)).toThrow(TypeError);
    expect(make(options)).toThrow(message);
  });

  it('accepts every documented option', () => {
    expect(
      make({
        store,
        maxBodyBytes: 1024,
        idempotencyTtlMs: 1000,
        maxAttempts: 2,
        secretKey: new Uint8Array(32),
        publicBaseUrl: 'https://agents.example.com/agents',
        dashboardPath: '/dashboard',
        webhookBaseUrl: 'https://hooks.example.com/agents',
        maxWebhooksPerFactory: 3,
        ingressLimits: { maxBodyBytes: 1000, deliveriesPerWindow: 5, authFailuresPerWindow: 2, windowMs: 1000 },
        onError: () => {},
        authenticate: () => undefined,
        clock: { now: () => 0 },
      }),
    ).not.toThrow();
  });
});

describe('createWorker options', () => {
  const handler = createAgentRunHandler({ store: createMemoryStore() });
  const { runs } = handler.app.services;
  const deps = { runs, store: handler.app.store, events: handler.app.events, clock: handler.app.clock };
  const make = (options: unknown) => () => createWorker(options as never);

  it.each([
    [{ executor: demoExecutor() }, /createWorker: option runs is required: a RunService/],
    [{ ...deps }, /option executor is required: an Executor/],
    [{ ...deps, executor: demoExecutor(), concurrency: '4' }, /option concurrency must be a number/],
    [{ ...deps, executor: demoExecutor(), pollIntervalMS: 10 }, /unknown option pollIntervalMS \(did you mean pollIntervalMs\?\)/],
    [{ ...deps, runs: handler, executor: demoExecutor() }, /option runs must be a RunService/],
    [{ ...deps, service: runs, executor: demoExecutor() }, /unknown option service/],
  ])('refuses %#', (options, message) => {
    expect(make(options)).toThrow(message);
  });

  it('accepts every documented option', () => {
    const worker = make({
      ...deps,
      maintenance: handler.app.maintenance,
      executor: demoExecutor(),
      workerId: 'w1',
      concurrency: 2,
      pollIntervalMs: 50,
      leaseMs: 3000,
      heartbeatMs: 1000,
      onError: () => {},
    })();
    expect(worker.id).toBe('w1');
  });

  it('agentrun.worker() passes the dependencies and the default executor itself', () => {
    const app = createAgentRun({ store: createMemoryStore(), executor: demoExecutor() });
    expect(app.worker({ workerId: 'w2' }).id).toBe('w2');
    expect(() => createAgentRun({ store: createMemoryStore() }).worker()).toThrow(/option executor is required/);
  });
});
