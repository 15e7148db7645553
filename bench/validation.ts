import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createAgentRunHandler, createApiKey } from '@agentrun/core';
import { READ_BODY } from '@agentrun/core/internal';
import { createMemoryStore } from '@agentrun/store-memory';
import type { BenchGroup } from './run.js';

/**
 * Hostile bodies through the real handler (docs/run-api.md, "Sizes first";
 * docs/management-api.md, "Body limits"): for every route that takes a body, its worst shapes (a
 * huge array, many keys, keys spread over objects each within the item limit, deep nesting, a
 * long string, a string of `\u0041` or `\"` escapes, of 4-byte characters, many short strings),
 * each at sizes up to that route's own body limit and just under it, sent alone while nothing
 * else runs; and the largest body a run accepts (five 5 MiB attachments).
 *
 * The stall is the longest the event loop was held while the request was handled: measured by
 * `monitorEventLoopDelay` (1 ms resolution) and by a heartbeat that notes the longest gap between
 * its turns (`setImmediate`), whichever is larger; each body is sent VALIDATION_ATTEMPTS times
 * (3) and its stall is the smallest of them, the machine being shared (another process taking
 * the core mid-stretch is not the request's doing), and a shape's is the largest over its sizes.
 * A request that yields between slices is not one stall, so its time from call to answer is
 * printed beside it (`total_ms`), not judged.
 * The criterion: no shape's worst stall over 50 ms at any size its route
 * admits; the last line says PASS or FAIL, and figures go to bench/results.json.
 *
 * Knobs (environment): VALIDATION_SIZES_MB (0.25,1,4,16: sizes below each route's limit, which
 * is always sent too), VALIDATION_ONLY (a comma-separated list of shape-name prefixes),
 * VALIDATION_ATTEMPTS (3).
 */
const SIZES_MB = (process.env.VALIDATION_SIZES_MB ?? '0.25,1,4,16').split(',').map(Number);
const ONLY = process.env.VALIDATION_ONLY?.split(',');
const CRITERION_MS = 50;
const ATTEMPTS = Number(process.env.VALIDATION_ATTEMPTS ?? 3);
const MiB = 1024 * 1024;

/** The default body limits, by route (docs/run-api.md, docs/management-api.md, docs/webhooks.md). */
const LIMITS = {
  run: 40 * MiB,
  management: 4 * MiB,
  testFilter: 256 * 1024 + 4096,
  ingress: 256 * 1024,
};

type Route = 'run' | 'followup' | 'automation' | 'webhook' | 'secret' | 'apply' | 'test-filter' | 'ingress';
const LIMIT_OF: Record<Route, number> = {
  run: LIMITS.run,
  followup: LIMITS.run,
  automation: LIMITS.management,
  webhook: LIMITS.management,
  secret: LIMITS.management,
  apply: LIMITS.management,
  'test-filter': LIMITS.testFilter,
  ingress: LIMITS.ingress,
};

/** A JSON text of about `bytes` bytes (never more): `open`, `item(i)` joined by commas, `close`. */
function repeated(bytes: number, open: string, item: (i: number) => string, close: string): string {
  const parts: string[] = [];
  let size = open.length + close.length;
  for (let i = 0; ; i++) {
    const next = item(i);
    if (size + next.length + 1 > bytes) break;
    parts.push(next);
    size += next.length + 1;
  }
  return `${open}${parts.join(',')}${close}`;
}

const array = (item: string) => (bytes: number) => repeated(bytes, '[', () => item, ']');
const keys = (value: string) => (bytes: number) => repeated(bytes, '{', (i) => `"k${i}":${value}`, '}');
/** Objects of `per` distinct keys each, side by side in one object: under an item limit of `per`. */
const spreadKeys = (per: number) => (bytes: number) => {
  let n = 0;
  return repeated(bytes, '{', (i) => `"o${i}":{${Array.from({ length: per }, () => `"k${n++}":0`).join(',')}}`, '}');
};
const str = (unit: string) => (bytes: number) =>
  `"${unit.repeat(Math.max(0, Math.floor((bytes - 2) / new TextEncoder().encode(unit).length)))}"`;
const long = str('a');
/** Arrays 60 deep (under the parser's 64), as many as fit side by side. */
const deep = (bytes: number) => repeated(bytes, '[', () => `${'['.repeat(60)}${']'.repeat(60)}`, ']');

/** The shapes every string field gets: long, escapes, quotes escaped, 4-byte characters. */
const strings = (prefix: string, route: Route, template: string): Shape[] => [
  { name: `${prefix}_long`, route, template, fill: long },
  { name: `${prefix}_u0041`, route, template, fill: str('\\u0041') },
  { name: `${prefix}_quotes`, route, template, fill: str('\\"') },
  { name: `${prefix}_emoji`, route, template, fill: str('😀') },
];

interface Shape {
  name: string;
  route: Route;
  /** The body around the hostile part, `@` marking where it goes. */
  template: string;
  fill: (bytes: number) => string;
}

const trigger = (filter: string) => `{"provider":"webhook","event":"received","filter":${filter}}`;
const automation = (filter: string) => `{"name":"a","prompt":"p","triggers":[${trigger(filter)}]}`;
const SHAPES: Shape[] = [
  { name: 'run.attachments_ints', route: 'run', template: '{"prompt":"x","attachments":@}', fill: array('0') },
  { name: 'run.attachments_strings', route: 'run', template: '{"prompt":"x","attachments":@}', fill: array('"a"') },
  { name: 'run.attachments_objects', route: 'run', template: '{"prompt":"x","attachments":@}', fill: array('{}') },
  { name: 'run.attachments_deep', route: 'run', template: '{"prompt":"x","attachments":@}', fill: deep },
  { name: 'run.images_ints', route: 'run', template: '{"prompt":"x","images":@}', fill: array('0') },
  { name: 'run.skills_strings', route: 'run', template: '{"prompt":"x","config":{"skills":@}}', fill: array('"o/r:s"') },
  { name: 'run.mcp_servers_keys', route: 'run', template: '{"prompt":"x","config":{"mcp_servers":@}}', fill: keys('{}') },
  {
    name: 'run.mcp_env_keys',
    route: 'run',
    template: '{"prompt":"x","config":{"mcp_servers":{"a":{"command":"npx","env":@}}}}',
    fill: keys('"v"'),
  },
  { name: 'run.metadata_keys', route: 'run', template: '{"prompt":"x","metadata":@}', fill: keys('"v"') },
  { name: 'run.unknown_keys', route: 'run', template: '{"prompt":"x","extra":1,"more":@}', fill: keys('0') },
  ...strings('run.prompt', 'run', '{"prompt":@}'),
  ...strings('run.attachment_data', 'run', '{"prompt":"x","attachments":[{"file_name":"a","mime_type":"text/plain","data":@}]}'),
  { name: 'run.title_long', route: 'run', template: '{"prompt":"x","title":@}', fill: long },
  ...strings('followup.message', 'followup', '{"message":@}'),
  { name: 'followup.keys', route: 'followup', template: '{"message":"x","more":@}', fill: keys('0') },
  { name: 'automation.webhook_ids_strings', route: 'automation', template: automation('{"webhook_ids":@}'), fill: array('"w"') },
  { name: 'automation.triggers_ints', route: 'automation', template: '{"name":"a","prompt":"p","triggers":@}', fill: array('0') },
  {
    name: 'automation.filter_wide',
    route: 'automation',
    template: automation('{"webhook_ids":["w"],"payload":{"a":@}}'),
    fill: array('"x"'),
  },
  {
    name: 'automation.filter_keys',
    route: 'automation',
    template: automation('{"webhook_ids":["w"],"payload":@}'),
    fill: spreadKeys(16_000),
  },
  {
    name: 'automation.filter_small_objects',
    route: 'automation',
    template: automation('{"webhook_ids":["w"],"payload":@}'),
    fill: spreadKeys(10),
  },
  { name: 'automation.filter_deep', route: 'automation', template: automation('{"webhook_ids":["w"],"payload":{"a":@}}'), fill: deep },
  ...strings('automation.prompt', 'automation', '{"name":"a","prompt":@,"triggers":[]}'),
  { name: 'webhook.keys', route: 'webhook', template: '{"name":"h","more":@}', fill: keys('0') },
  ...strings('webhook.name', 'webhook', '{"name":@}'),
  ...strings('secret.value', 'secret', '{"value":@}'),
  { name: 'apply.webhooks_objects', route: 'apply', template: '{"webhooks":@}', fill: array('{}') },
  { name: 'apply.automations_ints', route: 'apply', template: '{"automations":@}', fill: array('0') },
  {
    name: 'apply.filter_keys',
    route: 'apply',
    template: `{"automations":[${automation('{"webhook_ids":["w"],"payload":@}')}]}`,
    fill: spreadKeys(16_000),
  },
  {
    name: 'apply.filter_small_objects',
    route: 'apply',
    template: `{"automations":[${automation('{"webhook_ids":["w"],"payload":@}')}]}`,
    fill: spreadKeys(10),
  },
  {
    name: 'apply.filter_ints',
    route: 'apply',
    template: `{"automations":[${automation('{"webhook_ids":["w"],"payload":@}')}]}`,
    fill: (bytes) => repeated(bytes, '{', (i) => `"a${i}":[${Array(16_000).fill(0).join(',')}]`, '}'),
  },
  ...strings('apply.prompt', 'apply', '{"automations":[{"name":"a","prompt":@,"triggers":[]}]}'),
  { name: 'test_filter.payload_wide', route: 'test-filter', template: '{"webhook_uid":"w","payload":{"a":@}}', fill: array('"x"') },
  { name: 'test_filter.payload_ints', route: 'test-filter', template: '{"webhook_uid":"w","payload":{"a":@}}', fill: array('0') },
  { name: 'test_filter.payload_keys', route: 'test-filter', template: '{"webhook_uid":"w","payload":@}', fill: keys('0') },
  { name: 'test_filter.payload_deep', route: 'test-filter', template: '{"webhook_uid":"w","payload":{"a":@}}', fill: deep },
  ...strings('test_filter.payload', 'test-filter', '{"webhook_uid":"w","payload":{"a":@}}'),
  { name: 'ingress.payload_wide', route: 'ingress', template: '{"action":"opened","list":@}', fill: array('"x"') },
  { name: 'ingress.payload_ints', route: 'ingress', template: '{"action":"opened","list":@}', fill: array('0') },
  { name: 'ingress.payload_keys', route: 'ingress', template: '@', fill: keys('0') },
  { name: 'ingress.payload_deep', route: 'ingress', template: '{"action":"opened","list":@}', fill: deep },
  ...strings('ingress.payload', 'ingress', '{"action":"opened","text":@}'),
];

/** The largest body a run accepts: five attachments of 5 MiB, in base64. */
const largestRun = () =>
  JSON.stringify({
    prompt: 'x',
    attachments: [0, 1, 2, 3, 4].map((i) => ({
      file_name: `f${i}.bin`,
      mime_type: 'application/octet-stream',
      data: Buffer.alloc(5 * MiB, i + 1).toString('base64'),
    })),
  });

/** The longest the event loop goes without a turn while `work` runs, in ms. */
async function heldFor<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number; totalMs: number }> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  let last = performance.now();
  let longest = 0;
  let beating = true;
  const beat = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (beating) setImmediate(beat);
  };
  await new Promise((resolve) => setImmediate(resolve));
  delay.enable();
  setImmediate(beat);
  last = performance.now();
  const started = performance.now();
  const result = await work();
  const totalMs = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 2));
  beating = false;
  delay.disable();
  return { result, stallMs: Math.max(longest, delay.max / 1e6 - 1), totalMs };
}

export const validationGroup: BenchGroup = {
  name: 'validation',
  description: `hostile bodies through the real handler: the worst event-loop stall per request shape, up to each route's limit (criterion: ${CRITERION_MS} ms)`,
  async run() {
    const store = createMemoryStore();
    const handler = createAgentRunHandler({ store, secretKey: Buffer.alloc(32, 7).toString('base64') });
    const key = await createApiKey(store.apiKeys, {
      type: 'service_account',
      uid: 'bench',
      team_uid: 'team',
      permissions: ['manage_factory'],
    });
    const auth = `Bearer ${key}`;
    const call = async (method: string, path: string, body: string | Uint8Array, authorization = auth) => {
      const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
      const request = {
        method,
        url: `http://bench.local${path}`,
        headers: new Headers({ authorization, 'content-type': 'application/json', 'content-length': String(bytes.length) }),
        [READ_BODY]: () => Promise.resolve(bytes),
      } as unknown as Request;
      const response = await handler(request);
      return { status: response.status, text: await response.text() };
    };
    const json = async (method: string, path: string, body: unknown) => {
      const answer = await call(method, path, JSON.stringify(body));
      if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${answer.text}`);
      return JSON.parse(answer.text);
    };

    // What the routes need to reach validation: a run, a factory with a webhook and an automation
    // whose filter every ingress delivery is evaluated against.
    const run = await json('POST', '/api/v1/agent/run', { prompt: 'x' });
    const factory = (await json('POST', '/api/v1/factories', { name: 'bench' })).uid;
    const hook = await json('POST', `/api/v1/factories/${factory}/webhooks`, { name: 'hook' });
    const filtered = await json('POST', `/api/v1/factories/${factory}/automations`, {
      name: 'a',
      prompt: 'p',
      triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [hook.webhook.uid], payload: { action: ['opened'] } } }],
    });
    const paths: Record<Route, [string, string]> = {
      run: ['POST', '/api/v1/agent/run'],
      followup: ['POST', `/api/v1/agent/runs/${run.run_id}/followups`],
      automation: ['POST', `/api/v1/factories/${factory}/automations`],
      webhook: ['POST', `/api/v1/factories/${factory}/webhooks`],
      secret: ['PUT', '/api/v1/team/secrets/bench'],
      apply: ['POST', `/api/v1/factories/${factory}/apply`],
      'test-filter': ['POST', `/api/v1/factories/${factory}/automations/${filtered.id}/test-filter`],
      ingress: ['POST', `/webhooks/w/${hook.webhook.uid}`],
    };
    const send = (route: Route, bytes: Uint8Array) =>
      call(paths[route][0], paths[route][1], bytes, route === 'ingress' ? `Bearer ${hook.secret}` : auth);

    const figures: Record<string, number> = {};
    const rows: Record<string, string | number>[] = [];
    const over: string[] = [];
    const measure = async (name: string, route: Route, bodies: () => Iterable<Uint8Array>) => {
      let worst = 0;
      let worstAt = 0;
      let slowest = 0;
      const answers: string[] = [];
      for (const bytes of bodies()) {
        // Best of ATTEMPTS: what the request itself holds, without the times another process on
        // the machine took the core from it mid-stretch.
        let best = Number.POSITIVE_INFINITY;
        for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
          const { result, stallMs, totalMs } = await heldFor(() => send(route, bytes));
          best = Math.min(best, stallMs);
          slowest = Math.max(slowest, totalMs);
          if (attempt === 0) answers.push(`${(bytes.byteLength / MiB).toFixed(2)}:${result.status}`);
        }
        if (best > worst) [worst, worstAt] = [best, bytes.byteLength];
      }
      figures[`validation.${name}_worst_ms`] = worst;
      if (worst > CRITERION_MS) over.push(`${name} ${worst.toFixed(1)} ms`);
      rows.push({
        shape: name,
        worst_stall_ms: Number(worst.toFixed(1)),
        at_mib: Number((worstAt / MiB).toFixed(2)),
        total_ms: Number(slowest.toFixed(1)),
        verdict: worst > CRITERION_MS ? 'FAIL' : 'ok',
        'MiB:status': answers.join(' '),
      });
    };

    const shapes = SHAPES.filter((s) => !ONLY || ONLY.some((prefix) => s.name.startsWith(prefix)));
    for (const shape of shapes) {
      const limit = LIMIT_OF[shape.route];
      const sizes = [...SIZES_MB.map((mb) => mb * MiB).filter((b) => b < limit), limit];
      const [head, tail] = shape.template.split('@') as [string, string];
      await measure(shape.name, shape.route, function* () {
        for (const size of sizes) yield new TextEncoder().encode(head + shape.fill(size - head.length - tail.length) + tail);
      });
    }
    if (!ONLY || ONLY.some((prefix) => 'run.largest_accepted'.startsWith(prefix)))
      await measure('run.largest_accepted', 'run', function* () {
        yield new TextEncoder().encode(largestRun());
      });
    // Each route's limit holds: a body one KiB over it is a 413, whatever it holds.
    for (const route of Object.keys(LIMIT_OF) as Route[]) {
      const answer = await send(route, new TextEncoder().encode(`"${'a'.repeat(LIMIT_OF[route] + 1024)}"`));
      if (answer.status !== 413) over.push(`${route}: a body over its limit answered ${answer.status}, not 413`);
    }
    console.table(rows);
    const worst = Math.max(...rows.map((r) => r.worst_stall_ms as number));
    figures['validation.worst_stall_ms'] = worst;
    figures['validation.pass'] = over.length === 0 ? 1 : 0;
    console.log(
      over.length === 0
        ? `PASS: every shape's worst stall is at most ${CRITERION_MS} ms at every size its route admits (worst ${worst.toFixed(1)} ms)`
        : `FAIL (criterion ${CRITERION_MS} ms): ${over.join('; ')}`,
    );
    return figures;
  },
};
