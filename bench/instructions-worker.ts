import { createAgentRunHandler, createApiKey } from '@agentrun/core';
import { READ_BODY } from '@agentrun/core/internal';
import { createMemoryStore } from '@agentrun/store-memory';
import { bodyTemplate } from './ingress.js';
import { agentrunHandler, evaluatorOf, type IngressTarget } from './ingress-server.js';

/**
 * The child of the `instructions` group (bench/instructions.ts), run under callgrind:
 * `instructions-worker.ts <workload> <warm-up> <count>` sends `warm-up` and then `count`
 * operations of one workload through the core handler, one process per count, so the group can
 * take the difference of two counts as the instructions of the operations alone. Nothing in it
 * waits on a timer, and the handler's clock steps a millisecond a reading: work that followed the
 * time (rate windows, leases) would otherwise depend on how slowly callgrind runs it.
 */
const MiB = 1024 * 1024;

let time = Date.UTC(2026, 0, 1);
const clock = { now: () => time++ };

// Seeded randomness (xorshift32) for core's ids, keys and nonces: other ids would hash and sort
// differently in the store's maps from one run to the next, and so cost a different count.
let seed = 0x2545f491;
const nextRandom = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return seed >>> 0;
};
const getRandomValues = <T extends ArrayBufferView | null>(array: T): T => {
  if (array === null) return array;
  const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  for (let i = 0; i < bytes.length; i++) bytes[i] = nextRandom() & 0xff;
  return array;
};
const randomUUID = () => {
  const hex = Array.from(getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}` as const;
};
Object.defineProperty(globalThis.crypto, 'getRandomValues', { value: getRandomValues });
Object.defineProperty(globalThis.crypto, 'randomUUID', { value: randomUUID });

type Op = (i: number) => Promise<void>;

/** A request as the Node bridge hands it to core: the body's bytes through `READ_BODY`. */
function request(method: string, url: string, authorization: string, bytes: Uint8Array): Request {
  return {
    method,
    url,
    headers: new Headers({ authorization, 'content-type': 'application/json', 'content-length': String(bytes.length) }),
    [READ_BODY]: () => Promise.resolve(bytes),
  } as unknown as Request;
}

/**
 * `delivery`: the `ingress-core` workload (1 KB bodies, 1,000 webhooks, 10 automations a factory of
 * which 4 match), 10 in flight, and the evaluator drained after every 100: a delivery's accept and
 * its evaluation, without the evaluator's timers.
 */
async function delivery(): Promise<{ op: Op; batch: number; after: () => Promise<unknown> }> {
  const { handler, targets } = await agentrunHandler(false, undefined, { clock });
  const evaluator = evaluatorOf(handler);
  await evaluator?.stop();
  const body = bodyTemplate();
  const encoder = new TextEncoder();
  return {
    batch: 10,
    op: async (n) => {
      const target = targets[n % targets.length] as IngressTarget;
      const response = await handler(request('POST', `http://bench.local${target.path}`, target.authorization, encoder.encode(body(n))));
      if (response.status !== 202) throw new Error(`delivery answered ${response.status}`);
    },
    after: async () => evaluator?.drain(),
  };
}

/** A run created through `POST /api/v1/agent/run` with `body` (made once: the same bytes each time). */
async function runCreate(body: string): Promise<{ op: Op; batch: number; after: () => Promise<unknown> }> {
  const store = createMemoryStore();
  const handler = createAgentRunHandler({ store, clock, secretKey: Buffer.alloc(32, 7).toString('base64') });
  const key = await createApiKey(store.apiKeys, { type: 'service_account', uid: 'bench', team_uid: 'team' });
  const bytes = new TextEncoder().encode(body);
  return {
    batch: 1,
    op: async () => {
      const response = await handler(request('POST', 'http://bench.local/api/v1/agent/run', `Bearer ${key}`, bytes));
      if (response.status !== 200) throw new Error(`create answered ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
    },
    after: async () => undefined,
  };
}

const attachment = (bytes: number, i: number) => ({
  file_name: `f${i}.bin`,
  mime_type: 'application/octet-stream',
  data: Buffer.alloc(bytes, i + 1).toString('base64'),
});

const WORKLOADS: Record<string, () => Promise<{ op: Op; batch: number; after: () => Promise<unknown> }>> = {
  delivery,
  'run-small': () => runCreate(JSON.stringify({ prompt: 'Review the pull request.', config: { name: 'review', model_id: 'm' } })),
  'run-1mib': () => runCreate(JSON.stringify({ prompt: 'x', attachments: [attachment(MiB, 0)] })),
  // The largest body a run accepts: five attachments of 5 MiB, in base64 (33.3 MiB).
  'run-largest': () => runCreate(JSON.stringify({ prompt: 'x', attachments: [0, 1, 2, 3, 4].map((i) => attachment(5 * MiB, i)) })),
};

const [name = '', warm = '0', count = '0'] = process.argv.slice(2);
const make = WORKLOADS[name];
if (!make) {
  console.error(`unknown workload ${name}; workloads: ${Object.keys(WORKLOADS).join(', ')}`);
  process.exit(2);
}
const { op, batch, after } = await make();
const total = Number(warm) + Number(count);
for (let n = 0; n < total; ) {
  const upTo = Math.min(total, n + batch);
  const inFlight: Promise<void>[] = [];
  for (; n < upTo; n++) inFlight.push(op(n));
  await Promise.all(inFlight);
  if (n % 100 === 0 || n === total) await after();
}
