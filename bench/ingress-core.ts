import { READ_BODY } from '@agentrun/core/internal';
import { bodyTemplate } from './ingress.js';
import { agentrunHandler, type IngressTarget } from './ingress-server.js';
import type { BenchGroup } from './run.js';

/**
 * The ingress's own cost per delivery, without HTTP: the `ingress` group's workload (bearer auth,
 * 1 KB bodies, 1,000 webhooks, 10 automations per factory of which 4 match, memory store) sent
 * straight to the core handler, 10 in flight. Requests are what the Node bridge hands core: `method`,
 * `url`, `headers`, and the body through `READ_BODY`. What it measures is the floor under the HTTP
 * figures: no adapter can make a delivery cheaper than this. The evaluation that makes each
 * delivery's runs after the 202 (docs/webhooks.md, "When runs start") runs beside it and is
 * counted: the time runs until every delivery sent has its runs.
 *
 * Knobs (environment): INGRESS_CORE_DELIVERIES (60,000; a third of them warm up first).
 */
const DELIVERIES = Number(process.env.INGRESS_CORE_DELIVERIES ?? 60_000);
const IN_FLIGHT = 10;

export const ingressCoreGroup: BenchGroup = {
  name: 'ingress-core',
  description: `webhook deliveries through the core handler alone (no HTTP), memory store, ${IN_FLIGHT} in flight`,
  async run() {
    const { handler, targets } = await agentrunHandler();
    const deliver = deliveries(handler, targets, () => handler.app.evaluator.drain());
    await deliver(Math.round(DELIVERIES / 3));
    const usPerDelivery = await deliver(DELIVERIES - Math.round(DELIVERIES / 3));
    return { 'ingress.core_us_per_delivery': usPerDelivery, 'ingress.core_per_s': 1e6 / usPerDelivery };
  },
};

/**
 * Sends `count` deliveries to a core handler, `IN_FLIGHT` at a time, and answers the wall time
 * per delivery in µs. The counter carries on across calls, so no delivery is a Duplicate.
 */
export function deliveries(
  handler: (request: Request) => Promise<Response>,
  targets: IngressTarget[],
  /** Resolves once every delivery sent is evaluated (none when the handler made the runs in the accept). */
  evaluated: () => Promise<unknown> = async () => {},
): (count: number) => Promise<number> {
  const body = bodyTemplate();
  let n = 0;
  const deliver = async () => {
    const target = targets[n % targets.length] as IngressTarget;
    const bytes = new TextEncoder().encode(body(n++));
    const request = {
      method: 'POST',
      url: `http://bench.local${target.path}`,
      headers: new Headers({
        authorization: target.authorization,
        'content-type': 'application/json',
        'content-length': String(bytes.length),
      }),
      [READ_BODY]: () => Promise.resolve(bytes),
    } as unknown as Request;
    const response = await handler(request);
    if (response.status !== 202) throw new Error(`delivery answered ${response.status}`);
  };
  return async (count: number) => {
    const started = performance.now();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        for (let i = 0; i < count / IN_FLIGHT; i++) await deliver();
      }),
    );
    await evaluated();
    return ((performance.now() - started) * 1000) / count;
  };
}
