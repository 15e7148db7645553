import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMemoryStore } from '@agentrun/store-memory';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { fullPath, openApiDocument, ROUTES, type RouteSpec } from '../src/api.js';
import { createRouter } from '../src/http/router.js';
import { createAgentRun, createApiKey } from '../src/index.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const table = Object.entries(ROUTES) as [string, RouteSpec][];
const document = openApiDocument(ROUTES);

/** The member at a path of keys in parsed JSON. */
const at = (value: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], value);

/** `GET /api/v1/agent/runs/{runId}` → `GET /api/v1/agent/runs/{}`: the shape, whatever the param names. */
const shape = (method: string, path: string) => `${method.toUpperCase()} ${path.replace(/\{[^}]*\}/g, '{}')}`;

describe('the route table and the OpenAPI document', () => {
  it('has every route of the table, and nothing else, under its operation ID', () => {
    const inDocument = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations).map(([method, op]) => `${op.operationId} ${method.toUpperCase()} ${path}`),
    );
    const inTable = table.map(([operation, spec]) => `${operation} ${spec.method} ${fullPath(spec)}`);
    expect(inDocument.sort()).toEqual(inTable.sort());
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(document as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
  });

  it('is committed as docs/openapi.json, current (npm run openapi rewrites it)', () => {
    const committed = readFileSync(join(ROOT, 'docs/openapi.json'), 'utf8');
    expect(committed).toBe(`${JSON.stringify(document, null, 2)}\n`);
  });

  it('describes each path param, query, body and idempotency key from the table', () => {
    const getRun = document.paths['/api/v1/agent/runs/{runId}']?.get as Record<string, unknown>;
    expect(getRun.parameters).toEqual([expect.objectContaining({ name: 'runId', in: 'path', required: true })]);
    const list = document.paths['/api/v1/agent/runs']?.get as unknown as { parameters: { name: string; schema: unknown }[] };
    expect(list.parameters.map((p) => p.name)).toEqual(expect.arrayContaining(['limit', 'cursor', 'state', 'sort_by', 'q']));
    expect(list.parameters.find((p) => p.name === 'state')?.schema).toMatchObject({ type: 'array' });
    const run = at(document.paths, '/api/v1/agent/run', 'post');
    expect(at(run, 'requestBody', 'required')).toBe(true);
    expect(at(run, 'requestBody', 'content', 'application/json', 'schema', 'properties')).toHaveProperty('prompt');
    expect(at(run, 'parameters')).toEqual([expect.objectContaining({ name: 'Idempotency-Key', in: 'header' })]);
    expect(at(run, 'security')).toEqual([{ apiKey: [] }]);
    const cancel = at(document.paths, '/api/v1/agent/runs/{runId}/cancel', 'post');
    expect(at(cancel, 'requestBody', 'required')).toBe(false);
    expect(Object.keys(at(cancel, 'responses', '200', 'content') as object)).toEqual(['text/plain']);
    const deliver = at(document.paths, '/webhooks/w/{uid}', 'post');
    expect(at(deliver, 'security')).toEqual([]);
    expect(Object.keys(at(deliver, 'responses') as object)).toEqual(['202', 'default']);
  });

  it('matches every path of the table to its own operation, and answers 405 with the methods a path takes', () => {
    const router = createRouter(ROUTES);
    for (const [operation, spec] of table) {
      const path = fullPath(spec).replace(/\{([^}]*)\}/g, 'x-$1');
      const match = router.match(spec.method, path);
      expect(match, `${spec.method} ${path}`).toMatchObject({ kind: 'found', operation });
    }
    expect(router.match('DELETE', '/api/v1/agent/runs')).toEqual({ kind: 'method_not_allowed', allow: ['POST', 'GET', 'HEAD'] });
    expect(router.match('GET', '/api/v1/nowhere')).toEqual({ kind: 'not_found' });
    expect(router.match('HEAD', '/api/v1/agent/runs/r1')).toMatchObject({ kind: 'found', operation: 'getRun', params: { runId: 'r1' } });
  });
});

describe('the published oz-agent-sdk routes', () => {
  /** The run API routes of the published TypeScript client, read from the installed package itself. */
  function typescriptClientRoutes(): string[] {
    const require = createRequire(import.meta.url);
    const dir = join(dirname(require.resolve('oz-agent-sdk')), 'resources');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
    const routes = new Set<string>();
    for (const file of files) {
      const source = readFileSync(join(dir, file), 'utf8');
      // `this._client.get('/agent/runs', …)` and `this._client.post((0, path_1.path) \`/agent/runs/${runID}/cancel\`, …)`
      for (const m of source.matchAll(/_client\.(get|post|put|patch|delete)\((?:\(0, path_\d\.path\) )?['`]([^'`]+)['`]/g)) {
        routes.add(shape(m[1] as string, `/api/v1${(m[2] as string).replace(/\$\{[^}]*\}/g, '{}')}`));
      }
    }
    return [...routes].sort();
  }

  /**
   * Every call of the published Python client (warpdotdev/oz-sdk-python, src/oz_agent_sdk/resources/**,
   * as its api.md lists them), its releases together: which file and method sends each. It is not an
   * installed package here, so the list is kept by hand from those files;
   * test/python-client.e2e.test.ts sends each served call as that client writes it.
   */
  const PYTHON_CLIENT_ROUTES: Record<string, string> = {
    'GET /api/v1/agent': 'agent/agent.py list',
    'POST /api/v1/agent/run': 'agent/agent.py run (earlier releases)',
    'POST /api/v1/agent/runs': 'agent/agent.py run',
    'GET /api/v1/agent/artifacts/{}': 'agent/agent.py get_artifact',
    'GET /api/v1/agent/environments': 'agent/agent.py list_environments',
    'GET /api/v1/agent/runs': 'agent/runs.py list',
    'GET /api/v1/agent/runs/{}': 'agent/runs.py retrieve',
    'POST /api/v1/agent/runs/{}/cancel': 'agent/runs.py cancel',
    'POST /api/v1/agent/runs/{}/followups': 'agent/runs.py submit_followup',
    'GET /api/v1/agent/runs/{}/handoff/attachments': 'agent/runs.py list_handoff_attachments',
    'POST /api/v1/agent/schedules': 'agent/schedules.py create',
    'GET /api/v1/agent/schedules': 'agent/schedules.py list',
    'GET /api/v1/agent/schedules/{}': 'agent/schedules.py retrieve',
    'PUT /api/v1/agent/schedules/{}': 'agent/schedules.py update',
    'DELETE /api/v1/agent/schedules/{}': 'agent/schedules.py delete',
    'POST /api/v1/agent/schedules/{}/pause': 'agent/schedules.py pause',
    'POST /api/v1/agent/schedules/{}/resume': 'agent/schedules.py resume',
    'GET /api/v1/agent/sessions/{}/redirect': 'agent/sessions.py check_redirect',
    'GET /api/v1/agent/conversations/{}/redirect': 'agent/conversations.py check_redirect',
    'POST /api/v1/agent/identities': 'agent/agent_.py create',
    'GET /api/v1/agent/identities': 'agent/agent_.py list',
    'PUT /api/v1/agent/identities/{}': 'agent/agent_.py update',
    'DELETE /api/v1/agent/identities/{}': 'agent/agent_.py delete',
    'GET /api/v1/factory': 'factories/factories.py list',
    'GET /api/v1/factory/{}': 'factories/factories.py get',
    'POST /api/v1/factory/{}/runs': 'factories/runs.py create',
    'GET /api/v1/factory-inbox': 'factories/inbox.py list',
    'POST /api/v1/factory-inbox/notifications/read': 'factories/inbox.py mark_read',
    'POST /api/v1/factory-inbox/notifications/unread': 'factories/inbox.py mark_unread',
  };

  const served = new Set(table.map(([, spec]) => shape(spec.method, fullPath(spec))));

  it('the TypeScript client: every route it calls is in the table', () => {
    const client = typescriptClientRoutes();
    expect(client).toContain('POST /api/v1/agent/run');
    expect(client.filter((r) => !served.has(r))).toEqual([]);
  });

  it('the Python client: every call it makes is in the table', () => {
    const calls = Object.keys(PYTHON_CLIENT_ROUTES);
    expect(calls.filter((r) => !served.has(r))).toEqual([]);
  });
});

describe('GET /api/v1/openapi.json', () => {
  it('serves the document without an API key, with this server (and mount point) as its server URL', async () => {
    const app = createAgentRun({ store: createMemoryStore() });
    const res = await app.fetch(new Request('http://api.example.com/api/v1/openapi.json'));
    expect(res.status).toBe(200);
    const served = (await res.json()) as typeof document;
    expect(served).toEqual({ ...document, servers: [{ url: 'http://api.example.com' }] });
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const head = await app.fetch(new Request('http://api.example.com/api/v1/openapi.json', { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('leaves every other API route behind the API key', async () => {
    const store = createMemoryStore();
    const app = createAgentRun({ store });
    const unauthenticated = await app.fetch(new Request('http://x/api/v1/agent/runs'));
    expect(unauthenticated.status).toBe(401);
    const key = await createApiKey(store.apiKeys, { type: 'user', uid: 'u1', team_uid: 't1' });
    const ok = await app.fetch(new Request('http://x/api/v1/agent/runs', { headers: { authorization: `Bearer ${key}` } }));
    expect(ok.status).toBe(200);
  });
});
