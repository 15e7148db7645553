import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createAgentRunHandler, createApiKey } from '@agentrun/core';
import { READ_BODY } from '@agentrun/core/internal';
import { createMemoryStore } from '@agentrun/store-memory';
import type { BenchGroup } from './run.js';

/**
 * Hostile bodies through the real handler (issue 20, point 5; docs/run-api.md, "Sizes first"):
 * for each shape (a huge array of integers, strings or objects in each array field, many keys in
 * each map or object, deep nesting, long strings), bodies of several sizes up to the limits, each
 * sent alone while nothing else runs. The handler on the memory store never waits for I/O, so a
 * request's time from call to answer is time the event loop was held: that is the stall, and
 * `monitorEventLoopDelay` (1 ms resolution) confirms it from outside. Printed per shape: the worst
 * stall in ms, and that stall per MB of its body. Bodies are built before the clock starts.
 *
 * Knobs (environment): VALIDATION_SIZES_MB (0.25,2,8), VALIDATION_LIMIT_SHAPES (the shapes also
 * sent at the run API's body limit, 40 MiB; `none` for none).
 */
const SIZES_MB = (process.env.VALIDATION_SIZES_MB ?? '0.25,2,8').split(',').map(Number);
const LIMIT_MB = 40;
const LIMIT_SHAPES = (process.env.VALIDATION_LIMIT_SHAPES ?? 'run.attachments_ints,run.metadata_keys,run.prompt_long').split(',');
/** The ingress's own limit, 256 KiB (docs/webhooks.md). */
const INGRESS_MB = 0.25;

/** A JSON text of about `bytes` bytes: `open`, `item(i)` repeated with commas, `close`. */
function repeated(bytes: number, open: string, item: (i: number) => string, close: string): string {
  const parts: string[] = [];
  let size = open.length + close.length;
  for (let i = 0; size < bytes; i++) {
    const next = item(i);
    parts.push(next);
    size += next.length + 1;
  }
  return `${open}${parts.join(',')}${close}`;
}

const array = (item: string) => (bytes: number) => repeated(bytes, '[', () => item, ']');
const keys = (value: string) => (bytes: number) => repeated(bytes, '{', (i) => `"k${i}":${value}`, '}');
const long = (bytes: number) => `"${'a'.repeat(bytes)}"`;
/** Arrays 60 deep (under the parser's 64), as many as fit side by side. */
const deep = (bytes: number) => repeated(bytes, '[', () => `${'['.repeat(60)}${']'.repeat(60)}`, ']');

interface Shape {
  name: string;
  /** Where it goes: `run`, `followup`, `automation`, `apply`, `test-filter`, `ingress`. */
  route: 'run' | 'followup' | 'automation' | 'apply' | 'test-filter' | 'ingress';
  /** The body around the hostile part, `@` marking where it goes. */
  template: string;
  fill: (bytes: number) => string;
}

const trigger = (filter: string) => `{"provider":"webhook","event":"received","filter":${filter}}`;
const SHAPES: Shape[] = [
  { name: 'run.attachments_ints', route: 'run', template: '{"prompt":"x","attachments":@}', fill: array('0') },
  { name: 'run.attachments_strings', route: 'run', template: '{"prompt":"x","attachments":@}', fill: array('"a"') },
  { name: 'run.attachments_objects', route: 'run', template: '{"prompt":"x","attachments":@}', fill: array('{}') },
  { name: 'run.attachments_deep', route: 'run', template: '{"prompt":"x","attachments":@}', fill: deep },
  { name: 'run.images_ints', route: 'run', template: '{"prompt":"x","images":@}', fill: array('0') },
  { name: 'run.skills_strings', route: 'run', template: '{"prompt":"x","config":{"skills":@}}', fill: array('"o/r:s"') },
  { name: 'run.memory_stores_objects', route: 'run', template: '{"prompt":"x","config":{"memory_stores":@}}', fill: array('{}') },
  { name: 'run.mcp_servers_keys', route: 'run', template: '{"prompt":"x","config":{"mcp_servers":@}}', fill: keys('{}') },
  {
    name: 'run.mcp_args_ints',
    route: 'run',
    template: '{"prompt":"x","config":{"mcp_servers":{"a":{"command":"npx","args":@}}}}',
    fill: array('0'),
  },
  {
    name: 'run.mcp_env_keys',
    route: 'run',
    template: '{"prompt":"x","config":{"mcp_servers":{"a":{"command":"npx","env":@}}}}',
    fill: keys('"v"'),
  },
  { name: 'run.metadata_keys', route: 'run', template: '{"prompt":"x","metadata":@}', fill: keys('"v"') },
  { name: 'run.unknown_keys', route: 'run', template: '{"prompt":"x","extra":1,"more":@}', fill: keys('0') },
  { name: 'run.prompt_long', route: 'run', template: '{"prompt":@}', fill: long },
  { name: 'run.title_long', route: 'run', template: '{"prompt":"x","title":@}', fill: long },
  { name: 'run.mcp_url_long', route: 'run', template: '{"prompt":"x","config":{"mcp_servers":{"a":{"url":@}}}}', fill: long },
  {
    name: 'run.attachment_mime_long',
    route: 'run',
    template: '{"prompt":"x","attachments":[{"file_name":"a","mime_type":@,"data":""}]}',
    fill: long,
  },
  { name: 'followup.message_long', route: 'followup', template: '{"message":@}', fill: long },
  { name: 'followup.keys', route: 'followup', template: '{"message":"x","more":@}', fill: keys('0') },
  {
    name: 'automation.webhook_ids_strings',
    route: 'automation',
    template: `{"name":"a","prompt":"p","triggers":[${trigger('{"webhook_ids":@}')}]}`,
    fill: array('"w"'),
  },
  { name: 'automation.triggers_ints', route: 'automation', template: '{"name":"a","prompt":"p","triggers":@}', fill: array('0') },
  {
    name: 'automation.filter_payload_wide',
    route: 'automation',
    template: `{"name":"a","prompt":"p","triggers":[${trigger('{"webhook_ids":["w"],"payload":{"a":@}}')}]}`,
    fill: array('"x"'),
  },
  { name: 'apply.webhooks_objects', route: 'apply', template: '{"webhooks":@}', fill: array('{}') },
  { name: 'apply.automations_ints', route: 'apply', template: '{"automations":@}', fill: array('0') },
  { name: 'test_filter.payload_wide', route: 'test-filter', template: '{"webhook_uid":"w","payload":{"a":@}}', fill: array('"x"') },
  { name: 'test_filter.payload_keys', route: 'test-filter', template: '{"webhook_uid":"w","payload":@}', fill: keys('0') },
  { name: 'ingress.payload_wide', route: 'ingress', template: '{"action":"opened","list":@}', fill: array('"x"') },
  { name: 'ingress.payload_keys', route: 'ingress', template: '@', fill: keys('0') },
  { name: 'ingress.payload_deep', route: 'ingress', template: '{"action":"opened","list":@}', fill: deep },
];

export const validationGroup: BenchGroup = {
  name: 'validation',
  description: 'hostile bodies through the real handler: the event-loop stall per request, by shape and size',
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
    const automation = await json('POST', `/api/v1/factories/${factory}/automations`, {
      name: 'a',
      prompt: 'p',
      triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [hook.webhook.uid], payload: { action: ['opened'] } } }],
    });
    const paths: Record<Shape['route'], string> = {
      run: '/api/v1/agent/run',
      followup: `/api/v1/agent/runs/${run.run_id}/followups`,
      automation: `/api/v1/factories/${factory}/automations`,
      apply: `/api/v1/factories/${factory}/apply`,
      'test-filter': `/api/v1/factories/${factory}/automations/${automation.id}/test-filter`,
      ingress: `/webhooks/w/${hook.webhook.uid}`,
    };

    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const figures: Record<string, number> = {};
    const rows: Record<string, string | number>[] = [];
    for (const shape of SHAPES) {
      const sizes = shape.route === 'ingress' ? [INGRESS_MB] : [...SIZES_MB, ...(LIMIT_SHAPES.includes(shape.name) ? [LIMIT_MB] : [])];
      let worst = 0;
      let worstPerMb = 0;
      let statuses = '';
      for (const mb of sizes) {
        const [head, tail] = shape.template.split('@') as [string, string];
        // Just under the size: the last item may overshoot by its own length.
        const bytes = new TextEncoder().encode(head + shape.fill(Math.floor(mb * 1024 * 1024) - head.length - tail.length - 200) + tail);
        const authorization = shape.route === 'ingress' ? `Bearer ${hook.secret}` : auth;
        for (let attempt = 0; attempt < 2; attempt++) {
          await new Promise((resolve) => setImmediate(resolve));
          delay.reset();
          const started = performance.now();
          const answer = await call('POST', paths[shape.route], bytes, authorization);
          const stall = performance.now() - started;
          await new Promise((resolve) => setTimeout(resolve, 2));
          const seen = Math.max(stall, delay.max / 1e6 - 1);
          if (seen > worst) worst = seen;
          worstPerMb = Math.max(worstPerMb, seen / (bytes.byteLength / 1e6));
          if (attempt === 0) statuses += `${statuses ? ' ' : ''}${(bytes.byteLength / 1e6).toFixed(2)}MB:${answer.status}`;
        }
      }
      figures[`validation.${shape.name}_worst_ms`] = worst;
      figures[`validation.${shape.name}_ms_per_mb`] = worstPerMb;
      rows.push({ shape: shape.name, worst_ms: Number(worst.toFixed(1)), ms_per_mb: Number(worstPerMb.toFixed(1)), answers: statuses });
    }
    delay.disable();
    console.table(rows);
    return figures;
  },
};
