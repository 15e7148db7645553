import fc from 'fast-check';
import * as v from 'valibot';
import { beforeEach, describe, expect, it } from 'vitest';
import { CreateAutomationSchema } from '../src/control/schemas.js';
import { ApplyDefinitionsSchema } from '../src/definitions/schemas.js';
import { FILTER_LIMITS } from '../src/filter/limits.js';
import { parseFilter } from '../src/filter/parse.js';
import { jsonCountsExceed } from '../src/http/json-value-count.js';
import { RunAgentRequestSchema } from '../src/models/requests.js';
import { jsonBudget, oversize } from '../src/models/size-check.js';
import { expectProblem, type Harness, setup } from './helpers.js';

// Sizes over a schema's limits are refused before validation walks the body (models/size-check.ts;
// docs/run-api.md, "Sizes first"). These assert the answers; `npm run bench -- validation` measures the time.

// Within the run API's counts on the text (no array or object over 64 items, 17,754 values), so the
// size check on the parsed body is what refuses them.
const N = 60;
const ints = (n = N) => Array.from({ length: n }, (_, i) => i);
const strings = (n = N) => Array.from({ length: n }, () => 'x');
const objects = (n = N) => Array.from({ length: n }, () => ({}));
const keys = (n = N) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
const server = (extra: Record<string, unknown>) => ({ command: 'npx', ...extra });

interface Problem {
  detail: string;
  errors?: { path: string; detail: string }[];
}

describe('sizes over the limits, refused before validation', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await setup({ secretKey: Buffer.alloc(32, 7).toString('base64'), skills: ['o/r:s'] });
  });

  const refused = async (path: string, body: unknown, method = 'POST') =>
    (await expectProblem(await h.call(method, path, { body }), 400, 'invalid_request')) as unknown as Problem;

  describe('the run API', () => {
    it.each([
      ['attachments of integers', { prompt: 'x', attachments: ints() }, 'attachments', 'at most 5 items'],
      ['attachments of objects', { prompt: 'x', attachments: objects() }, 'attachments', 'at most 5 items'],
      ['images of strings', { prompt: 'x', images: strings() }, 'images', 'at most 5 items'],
      ['metadata keys', { prompt: 'x', metadata: keys() }, 'metadata', 'at most 20 metadata keys'],
      ['skills', { prompt: 'x', config: { skills: strings() } }, 'config.skills', 'at most 32 items'],
      ['memory stores', { prompt: 'x', config: { memory_stores: objects() } }, 'config.memory_stores', 'at most 32 items'],
      ['MCP servers', { prompt: 'x', config: { mcp_servers: keys() } }, 'config.mcp_servers', 'at most 32 servers'],
      [
        'MCP args',
        { prompt: 'x', config: { mcp_servers: { a: server({ args: ints(65) }) } } },
        'config.mcp_servers.a.args',
        'more than 64 items',
      ],
      [
        'MCP env',
        { prompt: 'x', config: { mcp_servers: { a: server({ env: keys(65) }) } } },
        'config.mcp_servers.a.env',
        'more than 64 items',
      ],
    ])('%s: a 400 naming the path and the limit', async (_, body, path, limit) => {
      const problem = await refused('/agent/run', body);
      expect(problem.detail).toContain(`${path}: ${limit}`);
      expect(problem.errors).toEqual([{ path, detail: expect.stringContaining(limit) }]);
    });

    it('an array or object larger than any the request allows: refused on the text, at its path', async () => {
      const problem = await refused('/agent/run', { prompt: 'x', attachments: ints(100_000) });
      expect(problem.errors).toEqual([
        { path: 'attachments', detail: 'more than 64 items: no array or object in this request may have more' },
      ]);
      const deep = await refused('/agent/run', { prompt: 'x', config: { mcp_servers: { a: { 'b.c': [{ d: keys(70) }] } } } });
      expect(deep.errors?.[0]?.path).toBe('config.mcp_servers.a.b.c.0.d');
    });

    it('more values than the schema could accept: refused before parsing', async () => {
      const budget = jsonBudget(RunAgentRequestSchema).values;
      // Every array within 64 items, 64 × 64 × 5 values in all.
      const problem = await refused('/agent/run', { prompt: 'x', attachments: ints(64).map(() => ints(64).map(() => ints(5))) });
      expect(problem.detail).toBe(`the request body holds more than ${budget} JSON values, more than this request's limits admit`);
    });

    it('names an unknown field of an object with too many keys, as validation does', async () => {
      const problem = await refused('/agent/run', { prompt: 'x', ...keys() });
      expect(problem.errors).toEqual([{ path: 'k0', detail: 'unknown field' }]);
      const followup = await refused('/agent/runs/r1/followups', { message: 'x', k0: 0, k1: 0 });
      // A follow-up has two fields, so three keys are already more than any object in it may have.
      expect(followup.errors).toEqual([{ path: '', detail: 'more than 2 items: no array or object in this request may have more' }]);
    });

    it('still takes bodies at the limits', async () => {
      const body = {
        prompt: 'x',
        metadata: keys(20),
        config: {
          skills: Array.from({ length: 32 }, () => 'o/r:s'),
          mcp_servers: Object.fromEntries(strings(32).map((_, i) => [`s${i}`, server({ args: strings(64) })])),
        },
      };
      const res = await h.call('POST', '/agent/run', { body });
      expect(res.status, await res.clone().text()).toBe(200);
    });
  });

  describe('the management API', () => {
    let factory: string;
    beforeEach(async () => {
      factory = (await h.json<{ uid: string }>('POST', '/factories', { body: { name: 'Acme' } })).body.uid;
    });
    const trigger = (filter: Record<string, unknown>) => ({ provider: 'webhook', event: 'received', filter });

    it('webhook_ids of an automation', async () => {
      const problem = await refused(`/factories/${factory}/automations`, {
        name: 'a',
        prompt: 'p',
        triggers: [trigger({ webhook_ids: strings() })],
      });
      expect(problem.errors).toEqual([{ path: 'triggers.0.filter.webhook_ids', detail: `at most 20 items (the body has ${N})` }]);
    });

    it('triggers of an automation, and a change to them', async () => {
      const create = await refused(`/factories/${factory}/automations`, { name: 'a', prompt: 'p', triggers: ints() });
      expect(create.errors).toEqual([{ path: 'triggers', detail: `at most 10 items (the body has ${N})` }]);
      const patch = await refused(`/factories/${factory}/automations/nope`, { triggers: ints() }, 'PATCH');
      expect(patch.errors).toEqual([{ path: 'triggers', detail: `at most 10 items (the body has ${N})` }]);
    });

    it('metadata-like maps in an automation config', async () => {
      const problem = await refused(`/factories/${factory}/automations`, {
        name: 'a',
        prompt: 'p',
        config: { mcp_servers: keys() },
        triggers: [],
      });
      expect(problem.errors).toEqual([{ path: 'config.mcp_servers', detail: 'at most 32 servers' }]);
    });

    it('an apply: one error at the path, in the errors list the apply promises', async () => {
      const webhooks = await refused(`/factories/${factory}/apply`, { webhooks: ints(150) });
      expect(webhooks.errors).toEqual([{ path: 'webhooks', detail: 'at most 100 items (the body has 150)' }]);
      const names = await refused(`/factories/${factory}/apply`, {
        automations: [{ name: 'a', prompt: 'p', triggers: [{ webhooks: strings() }] }],
      });
      expect(names.errors).toEqual([{ path: 'automations.0.triggers.0.webhooks', detail: `at most 20 items (the body has ${N})` }]);
    });

    it('an apply within the limits still lists every problem', async () => {
      const problem = await refused(`/factories/${factory}/apply`, { webhooks: [{ name: '-a' }, { name: '-b' }] });
      expect(problem.errors?.length).toBeGreaterThan(2);
    });

    it('an automation whose filters hold more values than their byte limit admits: refused before parsing', async () => {
      const budget = jsonBudget(CreateAutomationSchema).values;
      // No array over 2,000 items (the route allows 16,384), 10 × 10 × 2,000 values in all.
      const payload = Object.fromEntries(ints(10).map((i) => [`k${i}`, ints(2_000)]));
      const triggers = Array.from({ length: 10 }, () => trigger({ webhook_ids: ['w'], payload }));
      const problem = await refused(`/factories/${factory}/automations`, { name: 'a', prompt: 'p', triggers });
      expect(problem.detail).toBe(`the request body holds more than ${budget} JSON values, more than this request's limits admit`);
    });

    it('a test-filter body with too many keys', async () => {
      const automation = await h.json<{ id: string }>('POST', `/factories/${factory}/automations`, {
        body: { name: 'a', prompt: 'p', triggers: [] },
      });
      expect(automation.status).toBe(201);
      const path = `/factories/${factory}/automations/${automation.body.id}/test-filter`;
      const problem = await refused(path, { delivery_id: 'd', ...keys() });
      expect(problem.errors).toEqual([{ path: 'k0', detail: 'unknown field' }]);
    });
  });
});

describe('the size check never refuses what the schema accepts', () => {
  const name = fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/);
  const sized = <T>(arb: fc.Arbitrary<T>, max: number) => fc.array(arb, { maxLength: max, size: 'max' });
  const map = <T>(arb: fc.Arbitrary<T>, max: number) => fc.dictionary(name, arb, { maxKeys: max, size: 'max' });
  const mcp = fc.oneof(
    fc.record(
      { command: fc.constant('npx'), args: sized(fc.string({ maxLength: 4 }), 64), env: map(fc.string({ maxLength: 4 }), 64) },
      { requiredKeys: ['command'] },
    ),
    fc.record({ url: fc.constant('https://mcp.example.com'), headers: map(fc.constant('v'), 64) }, { requiredKeys: ['url'] }),
  );
  const attachment = fc.record({ file_name: name, mime_type: fc.constant('text/plain'), data: fc.constant('aGk=') });
  const runRequest = fc.record(
    {
      prompt: fc.constant('x'),
      attachments: sized(attachment, 5).map((list) => list.map((a, i) => ({ ...a, file_name: `${a.file_name}-${i}` }))),
      metadata: map(fc.string({ maxLength: 8 }), 20),
      config: fc.record(
        {
          skills: sized(fc.constant('o/r:s'), 32),
          mcp_servers: map(mcp, 32),
          memory_stores: sized(fc.record({ access: fc.constant('read_only'), instructions: fc.constant('i'), uid: name }), 32),
          harness: fc.record({ type: fc.constant('oz') }, { requiredKeys: [] }),
        },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: ['prompt'] },
  );

  it('run requests', () => {
    fc.assert(
      fc.property(runRequest, (body) => {
        expect(v.safeParse(RunAgentRequestSchema, body).success).toBe(true);
        expect(oversize(RunAgentRequestSchema, body)).toBeUndefined();
        expect(jsonCountsExceed(JSON.stringify(body, null, 1), jsonBudget(RunAgentRequestSchema))).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });

  it('definitions, and one more item than the limit is refused', () => {
    const webhook = fc.record({ name: fc.constant('hook'), secret_name: fc.constant('s') });
    const automation = fc.record({
      name: fc.constant('auto'),
      prompt: fc.constant('p'),
      triggers: sized(fc.record({ webhooks: sized(fc.constant('hook'), 20).filter((l) => l.length > 0), payload: fc.jsonValue() }), 10),
    });
    fc.assert(
      fc.property(fc.record({ webhooks: sized(webhook, 100), automations: sized(automation, 20) }), (body) => {
        expect(v.safeParse(ApplyDefinitionsSchema, body).success).toBe(true);
        expect(oversize(ApplyDefinitionsSchema, body)).toBeUndefined();
        const over = {
          ...body,
          webhooks: [...body.webhooks, ...Array.from({ length: 101 - body.webhooks.length }, () => body.webhooks[0])],
        };
        expect(oversize(ApplyDefinitionsSchema, over)).toMatchObject({ path: 'webhooks' });
      }),
      { numRuns: 50 },
    );
  });
});

describe('counting values before parsing', () => {
  /** The count json-value-count.ts makes, from the parsed value: strings, brackets and commas. */
  const count = (value: unknown): number => {
    if (typeof value === 'string') return 1;
    if (Array.isArray(value)) return 1 + Math.max(0, value.length - 1) + value.reduce((sum: number, item) => sum + count(item), 0);
    if (value !== null && typeof value === 'object') {
      const entries = Object.values(value);
      return 1 + Math.max(0, entries.length - 1) + entries.reduce((sum: number, item) => sum + 1 + count(item), 0);
    }
    return 0;
  };

  it('a filter its rules accept holds no more values than its byte limit (the budget of a payload)', () => {
    // As many values as the rules let a filter hold: up to 64 keys of lists of up to 256 one-byte
    // values each (FILTER_LIMITS), so accepted filters come near the byte limit. Larger or deeper
    // values are refused by the rules and only cost generation time (fc.pre drops them).
    const filter = fc.dictionary(
      fc.string({ minLength: 1, maxLength: 2 }),
      fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: FILTER_LIMITS.maxValues, size: 'max' }),
      { maxKeys: FILTER_LIMITS.maxKeys, size: 'max' },
    );
    fc.assert(
      fc.property(filter, (payload) => {
        let accepted = true;
        try {
          parseFilter(payload);
        } catch {
          accepted = false;
        }
        fc.pre(accepted);
        const max = FILTER_LIMITS.maxBytes;
        expect(jsonCountsExceed(JSON.stringify(payload), { values: max, items: max })).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });

  /** The items of the largest array or object in `value`. */
  const largest = (value: unknown): number => {
    if (value === null || typeof value !== 'object') return 0;
    const items = Object.values(value);
    return Math.max(items.length, ...items.map(largest));
  };

  it('counts exactly, whatever the strings hold (quotes, backslashes, commas, brackets)', () => {
    const text = fc.string({ unit: fc.constantFrom('"', '\\', ',', '[', '{', 'a', '\u00e9') });
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.integer(),
        fc.constant(null),
        fc.array(tie('value')),
        fc.dictionary(text, tie('value')),
      ),
    })).value;
    fc.assert(
      fc.property(json, fc.boolean(), (value, pretty) => {
        const source = JSON.stringify(value, null, pretty ? 2 : undefined);
        const n = count(value);
        expect(jsonCountsExceed(source, { values: n, items: Number.POSITIVE_INFINITY })).toBeUndefined();
        if (n > 0) expect(jsonCountsExceed(source, { values: n - 1, items: Number.POSITIVE_INFINITY })).toEqual({ count: 'values' });
        const m = largest(value);
        expect(jsonCountsExceed(source, { values: Number.POSITIVE_INFINITY, items: m })).toBeUndefined();
        if (m > 1) expect(jsonCountsExceed(source, { values: Number.POSITIVE_INFINITY, items: m - 1 })).toMatchObject({ count: 'items' });
      }),
      { numRuns: 500 },
    );
  });
});
