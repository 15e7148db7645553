import { READ_BODY } from '@agentrun/core/internal';
import { bodyTemplate } from './ingress.js';
import { agentrunHandler, evaluatorOf, type IngressTarget } from './ingress-server.js';
import type { BenchGroup } from './run.js';

/**
 * The ingress's own cost per delivery, without HTTP: the `ingress` group's workload (bearer auth,
 * 1 KB bodies, 1,000 webhooks, 10 automations per factory of which 4 match, memory store) sent
 * straight to the core handler, 10 in flight. Requests are what the Node bridge hands core: `method`,
 * `url`, `headers`, and the body through `READ_BODY` (bytes, as a socket gives them). What it
 * measures is the floor under the HTTP figures: no adapter can make a delivery cheaper than this.
 *
 * Accept and evaluation are both counted, as a delivery costs both: where the core has an
 * evaluator (runs made after the 202), it runs beside the deliveries, started by `agentrunHandler`,
 * and each timed phase ends only once it has drained, so every accepted delivery's runs exist. On
 * a core whose accept makes the runs (an older one measured beside it), there is nothing to wait
 * for.
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
    const evaluator = evaluatorOf(handler);
    const deliver = deliveries(handler, targets, evaluator);
    await deliver(Math.round(DELIVERIES / 3));
    const usPerDelivery = await deliver(DELIVERIES - Math.round(DELIVERIES / 3));
    await evaluator?.stop();
    return { 'ingress.core_us_per_delivery': usPerDelivery, 'ingress.core_per_s': 1e6 / usPerDelivery };
  },
};

/**
 * Sends `count` deliveries to a core handler, `IN_FLIGHT` at a time, then waits for `evaluator` to
 * have made every accepted delivery's runs, and answers the wall time per delivery in µs. The
 * counter carries on across calls, so no delivery is a Duplicate.
 */
export function deliveries(
  handler: (request: Request) => Promise<Response>,
  targets: IngressTarget[],
  evaluator?: { drain(): Promise<number> },
): (count: number) => Promise<number> {
  const bytesOf = bodyBytes();
  let n = 0;
  const deliver = async () => {
    const target = targets[n % targets.length] as IngressTarget;
    const bytes = bytesOf(n++);
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
        for (let i = 0; i < count / IN_FLIGHT; i++) {
          await deliver();
          // Back to the event loop between deliveries, as a server is between socket reads: the
          // memory store answers in microtasks only, so without this no timer (the evaluator's
          // coalescing pause) would fire until the phase ended, and evaluation would all happen in
          // the final drain, parsing every payload again (its handoff holds only the newest 1,024).
          await yieldToLoop();
        }
      }),
    );
    await evaluator?.drain();
    return ((performance.now() - started) * 1000) / count;
  };
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * `bodyTemplate()`'s bodies as UTF-8 bytes, made as a socket read would hand them over (a copy of
 * bytes), not by encoding 1 KB of text per delivery: the counter's digits between two parts
 * encoded once. The same bytes as encoding `bodyTemplate()(n)`.
 */
function bodyBytes(): (n: number) => Uint8Array {
  const [head, tail] = bodyTemplate()(0).split('"number":0') as [string, string];
  const encoder = new TextEncoder();
  const before = encoder.encode(`${head}"number":`);
  const after = encoder.encode(tail);
  return (n) => {
    const digits = String(n);
    const bytes = new Uint8Array(before.length + digits.length + after.length);
    bytes.set(before);
    for (let i = 0; i < digits.length; i++) bytes[before.length + i] = digits.charCodeAt(i);
    bytes.set(after, before.length + digits.length);
    return bytes;
  };
}
