import { createMemoryStore } from '@agentrun/store-memory';
import { metrics } from '@opentelemetry/api';
import { type DataPoint, MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgentRun, demoExecutor, type Worker } from '../src/index.js';
import { type Harness, manualClock, setup, T0 } from './helpers.js';

const KEY = Buffer.alloc(32, 9).toString('base64');

/** A reader the test collects from by hand (the in-memory reader of the docs' "Metrics and traces"). */
class TestReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/** Every data point of one metric, as [attributes, value]. */
function points(collected: ResourceMetrics, name: string): [Record<string, unknown>, unknown][] {
  const metric = collected.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
  return (metric?.dataPoints ?? []).map((p: DataPoint<unknown>) => [p.attributes, p.value]);
}
const sum = (collected: ResourceMetrics, name: string, match: Record<string, unknown>) =>
  points(collected, name)
    .filter(([attributes]) => Object.entries(match).every(([k, v]) => attributes[k] === v))
    .reduce((total, [, value]) => total + (value as number), 0);

describe('telemetry (OpenTelemetry metrics and spans)', () => {
  let h: Harness;
  let reader: TestReader;
  let spans: InMemorySpanExporter;
  let factory: string;
  const clock = manualClock(T0, 1);

  beforeEach(async () => {
    clock.set(T0);
    reader = new TestReader();
    spans = new InMemorySpanExporter();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
    h = await setup({
      secretKey: KEY,
      clock,
      telemetry: { meterProvider, tracerProvider },
      ingressLimits: { deliveriesPerWindow: 30, authFailuresPerWindow: 2 },
    });
    factory = (await h.json<{ uid: string }>('POST', '/factories', { body: { name: 'Acme' } })).body.uid;
  });

  const webhookWith = async (automations: number) => {
    const { webhook, secret } = (
      await h.json<{ webhook: { uid: string }; secret: string }>('POST', `/factories/${factory}/webhooks`, { body: { name: 'CI' } })
    ).body;
    for (let i = 0; i < automations; i++) {
      await h.json('POST', `/factories/${factory}/automations`, {
        body: {
          name: `Triage ${i}`,
          prompt: 'Triage the event.',
          triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [webhook.uid] } }],
        },
      });
    }
    const deliver = (body: string, authorization = `Bearer ${secret}`) =>
      h.handler(new Request(`http://agentrun.test/webhooks/w/${webhook.uid}`, { method: 'POST', headers: { authorization }, body }));
    return { uid: webhook.uid, deliver };
  };

  it('a burst of deliveries: counts by label and scheme, refusals by reason, runs by state and source, queue, store latency', async () => {
    const { deliver } = await webhookWith(2);
    const answers: number[] = [];
    for (let n = 0; n < 20; n++) answers.push((await deliver(`{"n":${n}}`)).status);
    answers.push((await deliver('{"n":0}')).status); // a duplicate
    answers.push((await deliver('{"n":')).status); // invalid JSON
    // Two failures are logged, then the spent budget refuses the webhook everything, even a good token.
    for (let n = 0; n < 3; n++) answers.push((await deliver('{}', 'Bearer wrong')).status);
    answers.push((await deliver('{"n":99}')).status);
    expect(answers.slice(-4)).toEqual([401, 401, 429, 429]);
    // Another webhook, past its 30 deliveries a window: refused for the rate.
    const other = await webhookWith(0);
    const burst: number[] = [];
    for (let n = 0; n < 35; n++) burst.push((await other.deliver(`{"n":${n}}`)).status);
    const rateRefused = burst.filter((s) => s === 429).length;
    expect(rateRefused).toBeGreaterThan(0);
    const accepted = [...answers, ...burst].filter((s) => s === 202).length - 1;
    expect(await h.evaluated()).toBe(accepted); // the runs are made after the 202s
    const unknown = await h.handler(new Request('http://agentrun.test/webhooks/w/no-such-webhook', { method: 'POST', body: '{}' }));
    expect(unknown.status).toBe(404);

    const { resourceMetrics: collected, errors } = await reader.collect();
    expect(errors).toEqual([]);
    const deliveries = (label: string) =>
      sum(collected, 'agentrun.deliveries', { 'agentrun.delivery.label': label, 'agentrun.webhook.scheme': 'token' });
    expect(deliveries('Accepted')).toBe(accepted);
    expect(deliveries('Duplicate')).toBe(1);
    expect(deliveries('Rejected (invalid JSON)')).toBe(1);
    expect(deliveries('Rejected (auth)')).toBe(2);
    expect(deliveries('Refused')).toBe(2 + rateRefused);
    expect(sum(collected, 'agentrun.deliveries', { 'agentrun.delivery.label': 'Not found', 'agentrun.webhook.scheme': 'unknown' })).toBe(1);
    expect(sum(collected, 'agentrun.ingress.refusals', { 'agentrun.refusal.reason': 'auth_budget' })).toBe(2);
    expect(sum(collected, 'agentrun.ingress.refusals', { 'agentrun.refusal.reason': 'rate_limit' })).toBe(rateRefused);
    expect(sum(collected, 'agentrun.runs', { 'agentrun.run.state': 'QUEUED', 'agentrun.run.source': 'WEBHOOK' })).toBe(2 * 20);
    expect(points(collected, 'agentrun.queue.depth')).toEqual([[{}, 2 * 20]]);
    const [[, age]] = points(collected, 'agentrun.queue.oldest_age') as [[unknown, number]];
    expect(age).toBeGreaterThan(0);
    const accept = points(collected, 'agentrun.store.duration').find(([a]) => a['agentrun.store.operation'] === 'deliveries.accept');
    expect(accept?.[0]).toEqual({ 'agentrun.store.operation': 'deliveries.accept', 'agentrun.outcome': 'ok' });
    // Every delivery past the auth checks and JSON reaches accept once (a refused one too).
    expect(accept?.[1]).toMatchObject({ count: accepted + 1 + rateRefused });
  });

  it('a delivery the store fails: counted Error, its span ERROR with the exception, a store call counted error', async () => {
    const { deliver } = await webhookWith(1);
    expect((await deliver('{"n":0}')).status).toBe(202); // the timed accept is made, then its method replaced
    const deliveries = h.store.deliveries;
    const accept = deliveries.accept;
    deliveries.accept = () => Promise.reject(new Error('the disk is full'));
    try {
      expect((await deliver('{"n":1}')).status).toBe(500);
    } finally {
      deliveries.accept = accept;
    }
    const { resourceMetrics: collected } = await reader.collect();
    expect(sum(collected, 'agentrun.deliveries', { 'agentrun.delivery.label': 'Error', 'agentrun.webhook.scheme': 'token' })).toBe(1);
    const failed = points(collected, 'agentrun.store.duration').find(([a]) => a['agentrun.outcome'] === 'error');
    expect(failed?.[0]).toEqual({ 'agentrun.store.operation': 'deliveries.accept', 'agentrun.outcome': 'error' });
    const span = spans.getFinishedSpans().filter((s) => s.name === 'webhook delivery')[1];
    expect(span?.status.code).toBe(2); // SpanStatusCode.ERROR
    expect(span?.events.map((e) => e.name)).toEqual(['exception']);
  });

  describe('spans', () => {
    let worker: Worker | undefined;
    afterEach(async () => {
      await worker?.stop();
      worker = undefined;
    });

    it("each API request has a span named by its route; the evaluation span lists the delivery's runs, and it and their executions link back to the delivery span", async () => {
      const { uid, deliver } = await webhookWith(2);
      const created = spans.getFinishedSpans().find((s) => s.name === 'POST /api/v1/factories');
      expect(created?.attributes).toMatchObject({
        'http.route': '/api/v1/factories',
        'http.response.status_code': 201,
        'agentrun.operation': 'createFactory',
      });

      expect((await h.call('GET', '/factories', { key: null })).status).toBe(401);
      const refused = spans.getFinishedSpans().find((s) => s.name === 'GET /api/v1/factories');
      expect(refused?.attributes).toMatchObject({ 'http.response.status_code': 401, 'agentrun.operation': 'listFactories' });

      expect((await deliver('{"action":"opened"}')).status).toBe(202);
      const delivery = spans.getFinishedSpans().find((s) => s.name === 'webhook delivery') as ReadableSpan;
      expect(delivery.attributes).toMatchObject({
        'agentrun.webhook.uid': uid,
        'agentrun.webhook.scheme': 'token',
        'agentrun.delivery.label': 'Accepted',
        'http.response.status_code': 202,
      });
      expect(delivery.attributes['agentrun.run.ids']).toBeUndefined(); // none exist at the 202
      expect(await h.evaluated()).toBe(1);
      const evaluation = spans.getFinishedSpans().find((s) => s.name === 'webhook evaluation') as ReadableSpan;
      expect(evaluation.attributes['agentrun.delivery.id']).toBe(delivery.attributes['agentrun.delivery.id']);
      expect(evaluation.links.map((l) => l.context.spanId)).toEqual([delivery.spanContext().spanId]);
      const runIds = evaluation.attributes['agentrun.run.ids'] as string[];
      expect(runIds).toHaveLength(2);

      worker = h.handler.app.worker({ executor: demoExecutor({ durationMs: 1 }), pollIntervalMs: 10 });
      worker.start();
      const executions = async () => {
        const deadline = Date.now() + 5000;
        for (;;) {
          const found = spans.getFinishedSpans().filter((s) => s.name === 'run execution');
          if (found.length === 2 || Date.now() > deadline) return found;
          await new Promise((r) => setTimeout(r, 10));
        }
      };
      const done = await executions();
      expect(done.map((s) => s.attributes['agentrun.run.id']).sort()).toEqual([...runIds].sort());
      for (const execution of done) {
        expect(execution.links.map((l) => l.context.spanId)).toEqual([delivery.spanContext().spanId]);
        expect(execution.attributes).toMatchObject({
          'agentrun.delivery.id': delivery.attributes['agentrun.delivery.id'],
          'agentrun.outcome': 'succeeded',
        });
      }
      // The worker's metrics: each run's first claim, its states, and its duration once it ended.
      const { resourceMetrics: collected } = await reader.collect();
      const webhookRuns = { 'agentrun.run.source': 'WEBHOOK' };
      for (const state of ['QUEUED', 'CLAIMED', 'INPROGRESS', 'SUCCEEDED']) {
        expect(sum(collected, 'agentrun.runs', { ...webhookRuns, 'agentrun.run.state': state })).toBe(2);
      }
      expect(points(collected, 'agentrun.run.pickup_latency')).toEqual([[webhookRuns, expect.objectContaining({ count: 2 })]]);
      expect(points(collected, 'agentrun.run.duration')).toEqual([
        [{ ...webhookRuns, 'agentrun.run.state': 'SUCCEEDED' }, expect.objectContaining({ count: 2 })],
      ]);
      // The webhook route has the delivery span only, no second request span.
      expect(spans.getFinishedSpans().filter((s) => s.name.includes('/webhooks/'))).toEqual([]);
    });
  });
});

describe('telemetry without an SDK', () => {
  afterEach(() => metrics.disable());

  it('records nothing and wraps nothing: the store is the one given', () => {
    const store = createMemoryStore();
    expect(createAgentRun({ store }).store).toBe(store);
  });

  it('follows a global meter provider registered before createAgentRun, unless told false', async () => {
    const reader = new TestReader();
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
    const store = createMemoryStore();
    expect(createAgentRun({ store, telemetry: false }).store).toBe(store);
    const app = createAgentRun({ store });
    expect(app.store).not.toBe(store);
    await app.store.runs.listExpiredLeases(new Date(T0).toISOString(), 1);
    const { resourceMetrics } = await reader.collect();
    expect(points(resourceMetrics, 'agentrun.store.duration').map(([a]) => a['agentrun.store.operation'])).toEqual([
      'runs.listExpiredLeases',
    ]);
  });
});
