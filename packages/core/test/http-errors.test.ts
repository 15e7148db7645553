import { createMemoryStore } from '@agentrun/store-memory';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../src/http/body.js';
import type { Store } from '../src/store/store.js';
import { BASE, expectProblem, type Harness, setup } from './helpers.js';

let h: Harness;
let runId: string;
beforeEach(async () => {
  h = await setup();
  runId = (await h.handler.service.create(h.principal, { prompt: 'existing' })).body.run_id;
});

/** Every answer of these tests must be a problem, never a 500, and never reach `onError`. */
const problem = async (res: Response, status: number, error?: string) => {
  const body = await expectProblem(res, status, error);
  expect(h.errors).toEqual([]);
  return body;
};

describe('authentication', () => {
  it.each([
    ['no Authorization header', {}],
    ['an unknown key', { authorization: 'Bearer ar_this-key-does-not-exist-at-all' }],
    ['the Basic scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['Bearer without a key', { authorization: 'Bearer' }],
    ['Bearer with spaces only', { authorization: 'Bearer    ' }],
    ['a key with junk after it', { authorization: 'Bearer ar_abc def' }],
    ['an overlong key', { authorization: `Bearer ${'k'.repeat(5000)}` }],
  ])('answers 401 with www-authenticate for %s', async (_, headers) => {
    for (const [method, path] of [
      ['GET', '/agent/runs'],
      ['GET', `/agent/runs/${runId}`],
      ['POST', '/agent/run'],
      ['POST', `/agent/runs/${runId}/cancel`],
    ] as const) {
      const res = await h.call(method, path, { key: null, headers, ...(method === 'POST' ? { body: { prompt: 'x' } } : {}) });
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      const p = await problem(res, 401, 'unauthorized');
      expect(p.detail).toMatch(/API key/);
    }
    // nothing was created or cancelled
    expect((await h.handler.service.get(h.principal, runId)).state).toBe('QUEUED');
    expect((await h.handler.service.list(h.principal, {})).runs).toHaveLength(1);
  });

  it('accepts the scheme case-insensitively', async () => {
    const res = await h.call('GET', '/agent/runs', { key: null, headers: { authorization: `bearer ${h.key}` } });
    expect(res.status).toBe(200);
  });

  it('checks credentials before reading the body', async () => {
    const request = new Request(`${BASE}/agent/run`, {
      method: 'POST',
      body: new ReadableStream<Uint8Array>({
        pull(c) {
          c.enqueue(new TextEncoder().encode('{"prompt":"x"}'));
          c.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    await problem(await h.handler(request), 401);
    expect(request.bodyUsed).toBe(false);
  });

  it('uses a custom authenticate hook, and its null means 401', async () => {
    const store = createMemoryStore();
    const custom = await setup({
      store,
      authenticate: (req) => (req.headers.get('x-user') === 'ok' ? { type: 'user', uid: 'u', team_uid: 't' } : null),
    });
    expect((await custom.call('GET', '/agent/runs', { key: null, headers: { 'x-user': 'ok' } })).status).toBe(200);
    await expectProblem(await custom.call('GET', '/agent/runs', { key: null, headers: { 'x-user': 'no' } }), 401, 'unauthorized');
  });
});

describe('routing', () => {
  it.each([
    ['GET', '/agent/runz'],
    ['GET', `/agent/runs/${'x'}/nothing`],
    ['POST', '/agent/runs/x/cancel/now'],
    ['GET', '/agent/runs/x/attachments'],
    ['GET', '/'],
  ])('answers 404 for %s %s', async (method, path) => {
    const p = await problem(await h.call(method, path), 404, 'not_found');
    expect(p.detail).toMatch(/no route/);
  });

  it('answers 404 for paths outside the API base', async () => {
    await problem(await h.call('GET', 'http://agentrun.test/agent/runs'), 404, 'not_found');
    await problem(await h.call('GET', 'http://agentrun.test/api/v2/agent/runs'), 404, 'not_found');
  });

  it.each([
    ['DELETE', '/agent/runs', ['GET', 'HEAD', 'POST']],
    ['PUT', '/agent/runs', ['GET', 'HEAD', 'POST']],
    ['GET', '/agent/run', ['POST']],
    ['DELETE', '/agent/runs/x', ['GET', 'HEAD']],
    ['PATCH', '/agent/runs/x', ['GET', 'HEAD']],
    ['GET', '/agent/runs/x/cancel', ['POST']],
    ['GET', '/agent/runs/x/followups', ['POST']],
    ['POST', '/agent/runs/x/attachments/a.txt', ['GET', 'HEAD']],
  ])('answers 405 for %s %s with allow: %j', async (method, path, allow) => {
    const res = await h.call(method, path);
    const header = res.headers.get('allow') ?? '';
    expect(
      header
        .split(',')
        .map((m) => m.trim())
        .sort(),
    ).toEqual(allow);
    await problem(res, 405, 'method_not_allowed');
  });

  it.each([
    ['an incomplete escape', '/agent/runs/%E0%A4%A'],
    ['a bare percent sign', '/agent/runs/100%'],
    ['a non-hex escape', '/agent/runs/%zz'],
    ['an escape of invalid UTF-8', '/agent/runs/%C3%28'],
    ['a bad escape in an attachment name', `/agent/runs/x/attachments/%FF`],
  ])('answers 400 for %s in the path', async (_, path) => {
    const p = await problem(await h.call('GET', path), 400, 'invalid_request');
    expect(p.detail).toMatch(/percent-encoding/);
  });

  it('answers 404 for encoded characters that decode to an unknown run', async () => {
    await problem(await h.call('GET', '/agent/runs/..%2F..%2Fetc'), 404, 'not_found');
  });

  // No store can keep NUL in text (PostgreSQL refuses it), so it is refused at the door.
  it('answers 400 for a NUL character in the path, the query or a JSON string', async () => {
    const path = await problem(await h.call('GET', '/agent/runs/%00'), 400, 'invalid_request');
    expect(path.detail).toMatch(/NUL/);
    const query = await problem(await h.call('GET', '/agent/runs?name=a%00b'), 400, 'invalid_request');
    expect(query.detail).toMatch(/NUL/);
    const body = await problem(await h.call('POST', '/agent/run', { body: { prompt: 'a\u0000b' } }), 400, 'invalid_request');
    expect(body.detail).toMatch(/prompt: .*NUL/);
    // Named at its dot path in `errors` too, keys included, as a schema's refusals are.
    expect(body.errors).toEqual([{ path: 'prompt', detail: expect.stringMatching(/NUL/) }]);
    const nested = await h.call('POST', '/agent/run', { body: { prompt: 'p', attachments: [{ 'a\u0000': 1 }] } });
    expect((await problem(nested, 400, 'invalid_request')).errors).toEqual([
      { path: 'attachments.0.a\u0000', detail: expect.stringMatching(/key must not contain the NUL/) },
    ]);
    // An escaped backslash before "u0000" is ordinary text, not a NUL.
    const ok = await h.call('POST', '/agent/run', { body: { prompt: 'a\\u0000b' } });
    expect(ok.status).toBe(200);
  });
});

describe('request bodies', () => {
  const post = (raw: BodyInit | undefined, path = '/agent/run', headers: Record<string, string> = {}) =>
    h.call('POST', path, raw === undefined ? { headers } : { raw, headers: { 'content-type': 'application/json', ...headers } });

  it.each([
    ['invalid JSON', '{"prompt": "x"', /not valid JSON/],
    ['a trailing comma', '{"prompt": "x",}', /not valid JSON/],
    ['single quotes', "{'prompt': 'x'}", /not valid JSON/],
    ['two documents', '{"prompt":"a"}{"prompt":"b"}', /not valid JSON/],
    ['NaN', '{"prompt": NaN}', /not valid JSON/],
  ])('rejects %s', async (_, raw, detail) => {
    const p = await problem(await post(raw), 400, 'invalid_request');
    expect(p.detail).toMatch(detail);
  });

  it.each([
    ['a lone continuation byte', [0x7b, 0x80, 0x7d]],
    ['an overlong encoding', [0x22, 0xc0, 0xaf, 0x22]],
    ['a UTF-16 surrogate in UTF-8', [0x22, 0xed, 0xa0, 0x80, 0x22]],
    ['a truncated sequence', [0x22, 0xe2, 0x82, 0x22]],
    ['Latin-1 text', [...'{"prompt":"caf'].map((c) => c.charCodeAt(0)).concat([0xe9, 0x22, 0x7d])],
  ])('rejects invalid UTF-8: %s', async (_, bytes) => {
    const p = await problem(await post(new Uint8Array(bytes)), 400, 'invalid_request');
    expect(p.detail).toMatch(/UTF-8/);
  });

  it('accepts a UTF-8 byte order mark', async () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"prompt":"bom"}')]);
    expect((await post(bytes)).status).toBe(200);
  });

  it.each([
    ['no body', undefined],
    ['an empty body', ''],
    ['whitespace only', ' \n\t '],
  ])('requires a body on create: %s', async (_, raw) => {
    const p = await problem(await post(raw), 400, 'invalid_request');
    expect(p.detail).toMatch(/body is required/);
  });

  it.each([
    ['null', 'null'],
    ['a string', '"Fix the bug"'],
    ['a number', '42'],
    ['true', 'true'],
  ])('rejects %s as the run request with a 400 that says an object is expected', async (_, raw) => {
    const p = await problem(await post(raw), 400, 'invalid_request');
    expect(p.detail).toMatch(/must be a JSON object/);
    expect(p.detail).not.toMatch(/unknown field/);
  });

  it.each([
    ['an empty array', '[]'],
    ['an array of requests', '[{"prompt":"x"}]'],
  ])('rejects %s as the run request', async (_, raw) => {
    const p = await problem(await post(raw), 400, 'invalid_request');
    expect(p.detail).toMatch(/must be a JSON object/);
    expect((await h.handler.service.list(h.principal, {})).runs).toHaveLength(1);
  });

  it.each([
    ['null', 'null'],
    ['a string', '"more"'],
    ['an array', '["more"]'],
  ])('rejects %s as the follow-up body', async (_, raw) => {
    await problem(await post(raw, `/agent/runs/${runId}/followups`), 400, 'invalid_request');
  });

  it('says which field is missing from a follow-up', async () => {
    const p = await problem(await post('{}', `/agent/runs/${runId}/followups`), 400, 'invalid_request');
    expect(p.detail).toMatch(/message: required/);
  });

  it.each([
    ['an unknown top-level field', { prompt: 'x', promt: 'y' }, 'promt: unknown field'],
    ['__proto__ as a field', JSON.parse('{"prompt":"x","__proto__":{"admin":true}}'), '__proto__: unknown field'],
    ['constructor as a field', { prompt: 'x', constructor: 1 }, 'constructor: unknown field'],
    ['an unknown config field', { prompt: 'x', config: { modle_id: 'm' } }, 'config.modle_id: unknown field'],
    [
      'an unknown MCP server field',
      { prompt: 'x', config: { mcp_servers: { s: { url: 'https://m', token: 't' } } } },
      'config.mcp_servers.s.token',
    ],
    [
      'an unknown attachment field',
      { prompt: 'x', attachments: [{ file_name: 'a', mime_type: 'text/plain', data: '', x: 1 }] },
      'attachments.0.x',
    ],
    ['a numeric prompt', { prompt: 5 }, 'prompt'],
    ['a null prompt', { prompt: null }, 'prompt'],
    ['a string config', { prompt: 'x', config: 'fast' }, 'config'],
    ['an array config', { prompt: 'x', config: ['a'] }, 'config'],
    ['a numeric title', { prompt: 'x', title: 1 }, 'title'],
    ['a string team flag', { prompt: 'x', team: 'yes' }, 'team'],
    ['attachments as an object', { prompt: 'x', attachments: {} }, 'attachments'],
    ['idle_timeout_minutes 0', { prompt: 'x', config: { idle_timeout_minutes: 0 } }, 'config.idle_timeout_minutes'],
    ['idle_timeout_minutes 61', { prompt: 'x', config: { idle_timeout_minutes: 61 } }, 'config.idle_timeout_minutes'],
    ['idle_timeout_minutes 1.5', { prompt: 'x', config: { idle_timeout_minutes: 1.5 } }, 'config.idle_timeout_minutes'],
    ['idle_timeout_minutes "5"', { prompt: 'x', config: { idle_timeout_minutes: '5' } }, 'config.idle_timeout_minutes'],
    ['computer_use_enabled "yes"', { prompt: 'x', config: { computer_use_enabled: 'yes' } }, 'config.computer_use_enabled'],
    ['an MCP server with none of warp_id/command/url', { prompt: 'x', config: { mcp_servers: { s: {} } } }, 'config.mcp_servers.s'],
    [
      'an MCP server with command and url',
      { prompt: 'x', config: { mcp_servers: { s: { command: 'npx', url: 'https://m' } } } },
      'config.mcp_servers.s',
    ],
    [
      'an MCP server with warp_id and url',
      { prompt: 'x', config: { mcp_servers: { s: { warp_id: 'w', url: 'https://m' } } } },
      'config.mcp_servers.s',
    ],
    [
      'an MCP server with all three',
      { prompt: 'x', config: { mcp_servers: { s: { warp_id: 'w', command: 'c', url: 'https://m' } } } },
      'config.mcp_servers.s',
    ],
    ['an MCP url that is not a URL', { prompt: 'x', config: { mcp_servers: { s: { url: 'not a url' } } } }, 'config.mcp_servers.s.url'],
    [
      'MCP args without command',
      { prompt: 'x', config: { mcp_servers: { s: { url: 'https://m', args: ['a'] } } } },
      'config.mcp_servers.s',
    ],
    [
      'MCP headers without url',
      { prompt: 'x', config: { mcp_servers: { s: { command: 'c', headers: { a: 'b' } } } } },
      'config.mcp_servers.s',
    ],
    ['an overlong prompt', { prompt: 'x'.repeat(100_001) }, 'prompt'],
    ['an overlong title', { prompt: 'x', title: 't'.repeat(301) }, 'title'],
  ])('rejects %s with a 400 naming %s', async (_, body, path) => {
    const p = await problem(await h.call('POST', '/agent/run', { body }), 400, 'invalid_request');
    expect(p.detail).toContain(path);
    expect((await h.handler.service.list(h.principal, {})).runs).toHaveLength(1);
  });

  it('accepts the edge values of idle_timeout_minutes and each single MCP form', async () => {
    for (const config of [
      { idle_timeout_minutes: 1 },
      { idle_timeout_minutes: 60 },
      { mcp_servers: { a: { warp_id: 'w-1' } } },
      { mcp_servers: { b: { command: 'npx', args: ['-y', 'srv'], env: { K: 'v' } } } },
      { mcp_servers: { c: { url: 'https://mcp.example.com/sse', headers: { authorization: 'Bearer t' } } } },
    ]) {
      const res = await h.call('POST', '/agent/run', { body: { prompt: 'x', config } });
      expect(res.status).toBe(200);
    }
  });

  describe('size limit', () => {
    beforeEach(async () => {
      h = await setup({ maxBodyBytes: 1024 });
    });
    const big = JSON.stringify({ prompt: 'x'.repeat(2000) });

    it('answers 413 for a declared Content-Length over the limit', async () => {
      const p = await problem(await post(big, '/agent/run', { 'content-length': String(big.length) }), 413, 'payload_too_large');
      expect(p.detail).toContain('1024');
    });

    it('answers 413 for a body over the limit without Content-Length', async () => {
      await problem(await post(big), 413, 'payload_too_large');
    });

    it('answers 413 for a streamed body of unknown length, and stops reading it', async () => {
      let chunks = 0;
      let cancelled = false;
      const endless = new ReadableStream<Uint8Array>({
        pull(c) {
          chunks++;
          c.enqueue(new Uint8Array(100).fill(0x20));
        },
        cancel() {
          cancelled = true;
        },
      });
      await problem(await post(endless), 413, 'payload_too_large');
      expect(cancelled).toBe(true);
      expect(chunks).toBeLessThan(20);
    });

    it('accepts a body at exactly the limit', async () => {
      const exact = JSON.stringify({ prompt: 'y' }).padEnd(1024, ' ');
      expect(exact.length).toBe(1024);
      expect((await post(exact)).status).toBe(200);
    });

    it('applies to follow-ups and cancel too', async () => {
      await problem(await post(big, `/agent/runs/${runId}/followups`), 413, 'payload_too_large');
      await problem(await post(big, `/agent/runs/${runId}/cancel`), 413, 'payload_too_large');
    });
  });

  it('rejects 100,000-deep nesting quickly with a 400', async () => {
    for (const raw of ['['.repeat(100_000) + ']'.repeat(100_000), '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)]) {
      const started = performance.now();
      const p = await problem(await post(raw), 400, 'invalid_request');
      expect(p.detail).toMatch(/nests deeper/);
      expect(performance.now() - started).toBeLessThan(1000);
    }
  });

  it(`allows nesting up to ${MAX_JSON_DEPTH} levels (then validation decides)`, async () => {
    const deep = (n: number) => '['.repeat(n - 1) + '{}' + ']'.repeat(n - 1);
    const ok = await problem(await post(`{"prompt":"x","config":{"name":${deep(MAX_JSON_DEPTH - 2)}}}`), 400, 'invalid_request');
    expect(ok.detail).toContain('config.name');
    const tooDeep = await problem(await post(`{"prompt":"x","config":{"name":${deep(MAX_JSON_DEPTH - 1)}}}`), 400);
    expect(tooDeep.detail).toMatch(/nests deeper/);
  });

  it('does not count brackets inside strings', async () => {
    const res = await post(JSON.stringify({ prompt: `${'['.repeat(500)} \\" ${'{'.repeat(500)}` }));
    expect(res.status).toBe(200);
  });

  it.each([
    ['a JSON object with a field', '{"reason":"too slow"}'],
    ['a JSON array', '[]'],
    ['a JSON string', '"now"'],
    ['null', 'null'],
    ['invalid JSON', 'please'],
  ])('rejects cancel with %s as the body', async (_, raw) => {
    await problem(await post(raw, `/agent/runs/${runId}/cancel`), 400, 'invalid_request');
    expect((await h.handler.service.get(h.principal, runId)).state).toBe('QUEUED');
  });
});

describe('query strings', () => {
  it.each([
    ['a repeated limit', 'limit=1&limit=2', 'limit'],
    ['a repeated name', 'name=a&name=b', 'name'],
    ['a repeated cursor', 'cursor=a&cursor=b', 'cursor'],
    ['an unknown parameter', 'colour=blue', 'colour'],
    ['a misspelt parameter', 'sortby=created_at', 'sortby'],
    ['__proto__', '__proto__=1', '__proto__'],
    ['__proto__ with a nested key', '__proto__%5Badmin%5D=1', '__proto__[admin]'],
    ['constructor', 'constructor=x', 'constructor'],
    ['toString', 'toString=x', 'toString'],
    ['hasOwnProperty', 'hasOwnProperty=x', 'hasOwnProperty'],
    ['an empty name', '=x', 'unknown'],
  ])('rejects %s with a 400 naming it', async (_, query, name) => {
    const p = await problem(await h.call('GET', `/agent/runs?${query}`), 400, 'invalid_request');
    expect(p.detail).toContain(name);
  });

  it('still works after a __proto__ query (no prototype pollution)', async () => {
    await h.call('GET', '/agent/runs?__proto__=polluted&__proto__%5Bpolluted%5D=yes');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await h.call('GET', '/agent/runs')).status).toBe(200);
  });

  it('accepts a repeated state', async () => {
    expect((await h.call('GET', '/agent/runs?state=QUEUED&state=FAILED&state=QUEUED')).status).toBe(200);
  });
});

describe('Idempotency-Key', () => {
  it.each([
    ['a space inside', 'abc def'],
    ['256 characters', 'k'.repeat(256)],
    ['non-ASCII', 'clé'],
    ['a tab inside', 'a\tb'],
  ])('rejects a key with %s', async (_, key) => {
    const res = await h.call('POST', '/agent/run', { body: { prompt: 'x' }, headers: { 'idempotency-key': key } });
    const p = await problem(res, 400, 'invalid_request');
    expect(p.detail).toContain('Idempotency-Key');
    expect((await h.handler.service.list(h.principal, {})).runs).toHaveLength(1);
  });

  it('rejects a bad key on cancel and follow-up too, without acting', async () => {
    const headers = { 'idempotency-key': 'bad key' };
    await problem(await h.call('POST', `/agent/runs/${runId}/cancel`, { headers }), 400, 'invalid_request');
    await problem(await h.call('POST', `/agent/runs/${runId}/followups`, { headers, body: { message: 'x' } }), 400, 'invalid_request');
    expect((await h.handler.service.get(h.principal, runId)).state).toBe('QUEUED');
    expect(await h.store.runs.listFollowups(runId)).toEqual([]);
  });

  it('accepts 255 visible ASCII characters', async () => {
    const res = await h.call('POST', '/agent/run', { body: { prompt: 'x' }, headers: { 'idempotency-key': '~'.repeat(255) } });
    expect(res.status).toBe(200);
  });
});

describe('unexpected errors', () => {
  /** A store whose `method` of `part` throws an error full of secrets. */
  function brokenStore(part: 'runs' | 'apiKeys' | 'idempotency', method: string): { store: Store; thrown: Error } {
    const real = createMemoryStore();
    const thrown = new Error('connection to postgres://admin:hunter2@db.internal:5432 failed at /srv/app/store.ts:42');
    const broken = new Proxy(real[part] as object, {
      get(target, prop, receiver) {
        if (prop === method) return () => Promise.reject(thrown);
        return Reflect.get(target, prop, receiver);
      },
    });
    return { store: { ...real, [part]: broken } as Store, thrown };
  }

  it.each([
    ['runs', 'list', 'GET', '/agent/runs', undefined],
    ['runs', 'create', 'POST', '/agent/run', { prompt: 'x' }],
    ['runs', 'get', 'GET', '/agent/runs/r-1', undefined],
    ['runs', 'transition', 'POST', '/agent/runs/RUN/cancel', undefined],
    ['idempotency', 'get', 'POST', '/agent/run', { prompt: 'x' }],
  ] as const)('turns a throwing store.%s.%s into a 500 internal_error that leaks nothing', async (part, method, verb, path, body) => {
    const { store, thrown } = brokenStore(part, method);
    const seen: { error: unknown; request: Request | undefined }[] = [];
    const b = await setup({ store, onError: (error, request) => seen.push({ error, request }) });
    let target: string = path;
    if (path.includes('RUN')) target = path.replace('RUN', (await b.handler.service.create(b.principal, { prompt: 'p' })).body.run_id);
    const res = await b.call(verb, target, {
      ...(body ? { body } : {}),
      headers: { 'idempotency-key': 'k-1' },
    });
    const text = await res.clone().text();
    const p = await expectProblem(res, 500, 'internal_error');
    expect(p.detail).toBe('an unexpected error occurred');
    for (const secret of ['hunter2', 'postgres', 'db.internal', 'store.ts', 'Error', 'stack']) expect(text).not.toContain(secret);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.error).toBe(thrown);
    expect(seen[0]?.request?.url).toContain(target);
  });

  it('turns a throwing authenticate hook into a 500 too', async () => {
    const seen: unknown[] = [];
    const b = await setup({
      authenticate: () => {
        throw new TypeError('cannot read properties of undefined (reading "session")');
      },
      onError: (error) => seen.push(error),
    });
    const res = await b.call('GET', '/agent/runs');
    const p = await expectProblem(res, 500, 'internal_error');
    expect(p.detail).not.toContain('session');
    expect(seen).toHaveLength(1);
  });
});

// ─────────────────────────────────────────────── never a 500

describe('fuzz: bad input never yields a 500', () => {
  const paths = ['/agent/run', '/agent/runs', '/agent/runs/RUN/followups', '/agent/runs/RUN/cancel'];

  it('any JSON value as a POST body gets 200 or a 4xx problem', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), fc.jsonValue({ maxDepth: 4 }), async (path, value) => {
        const res = await h.call('POST', path.replace('RUN', runId), { raw: JSON.stringify(value) });
        if (res.status !== 200) await expectProblem(res, res.status);
        expect(res.status < 500).toBe(true);
      }),
      { numRuns: 300 },
    );
    expect(h.errors).toEqual([]);
  });

  it('near-valid run requests get 200 or a 4xx problem', async () => {
    const field = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }));
    const request = fc.record(
      {
        prompt: field,
        skill: fc.oneof(field, fc.constantFrom('a/b:c', 'a/b:c/SKILL.md')),
        title: field,
        config: fc.oneof(
          field,
          fc.record(
            {
              name: field,
              model_id: field,
              skill_spec: field,
              idle_timeout_minutes: fc.oneof(fc.integer({ min: -5, max: 70 }), field),
              mcp_servers: fc.dictionary(
                fc.string(),
                fc.record({ warp_id: field, command: field, url: fc.oneof(field, fc.webUrl()) }, { requiredKeys: [] }),
              ),
            },
            { requiredKeys: [] },
          ),
        ),
        parent_run_id: field,
        attachments: fc.array(fc.record({ file_name: field, mime_type: field, data: fc.oneof(field, fc.base64String()) }), {
          maxLength: 6,
        }),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(request, async (body) => {
        const res = await h.call('POST', '/agent/run', { body });
        if (res.status !== 200) await expectProblem(res, res.status);
        expect([200, 400]).toContain(res.status);
      }),
      { numRuns: 300 },
    );
    expect(h.errors).toEqual([]);
  });

  it('any bytes as a body get a 4xx problem or 200', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), fc.uint8Array({ maxLength: 200 }), async (path, bytes) => {
        const res = await h.call('POST', path.replace('RUN', runId), { raw: bytes });
        if (res.status !== 200) await expectProblem(res, res.status);
        expect(res.status < 500).toBe(true);
      }),
      { numRuns: 200 },
    );
    expect(h.errors).toEqual([]);
  });

  it('any query string on the list gets 200 or a 400 problem', async () => {
    const keys = fc.oneof(
      fc.constantFrom(
        'limit',
        'cursor',
        'sort_by',
        'sort_order',
        'state',
        'name',
        'created_after',
        'q',
        'skill',
        'skill_spec',
        '__proto__',
      ),
      fc.string({ maxLength: 10 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(keys, fc.string({ maxLength: 30 })), { maxLength: 5 }), async (pairs) => {
        const qs = new URLSearchParams(pairs).toString();
        const res = await h.call('GET', `/agent/runs?${qs}`);
        if (res.status !== 200) await expectProblem(res, 400, 'invalid_request');
      }),
      { numRuns: 300 },
    );
    expect(h.errors).toEqual([]);
  });

  it('any path under the API base gets a 4xx problem or 200', async () => {
    const segment = fc.oneof(
      fc.constantFrom('agent', 'run', 'runs', 'cancel', 'followups', 'attachments', runId, '%', '%zz', '%00', '..', '.'),
      fc.string({ maxLength: 8 }).map(encodeURIComponent),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
        fc.array(segment, { maxLength: 6 }),
        async (method, segments) => {
          const res = await h.call(method, `/${segments.join('/')}`, method === 'GET' ? {} : { raw: '{}' });
          if (res.status !== 200) await expectProblem(res, res.status);
          expect(res.status < 500).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
    expect(h.errors).toEqual([]);
  });
});
