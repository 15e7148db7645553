import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './support.js';

// What a broken or hostile server (or a proxy in front of one) can answer, and what the command
// line makes of it (docs/cli.md, "Output" and "Exit codes"): its text reaches
// the terminal with control characters shown as �, and a malformed answer is exit 3, never a
// crash (70) or 0. A stub server answers by path; the reference server never answers these.

const OSC_TITLE = '\x1b]0;pwned\x07';
const CLEAR = '\x1b[2J';
/** Any raw C0 but newline and tab, DEL, or C1, in what reached the terminal. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const run = (run_id: string, extra: Record<string, unknown> = {}) => ({
  run_id,
  task_id: run_id,
  title: `${OSC_TITLE}deploy${CLEAR}`,
  state: 'SUCCEEDED',
  prompt: 'p',
  created_at: '2026-11-25T04:00:00.000Z',
  updated_at: '2026-11-25T04:00:00.000Z',
  ...extra,
});

const event = (id: number, type: string, data: unknown) => ({ id, at: '2026-11-25T04:00:01.000Z', type, data });

/** Path (after /api/v1) → status, content type and body. */
const ANSWERS: Record<string, { status?: number; type?: string; body: string }> = {
  '/agent/runs/hostile': { body: JSON.stringify(run('hostile', { status_message: { message: `failed ${CLEAR}` } })) },
  '/agent/runs/not-json': { body: '<html>Sign in to the proxy</html>', type: 'text/html' },
  '/agent/runs/wrong-shape': { body: JSON.stringify({ id: 'hostile', name: 'not a run' }) },
  '/agent/runs/gone': {
    status: 404,
    type: 'application/problem+json',
    body: JSON.stringify({ error: `not_found${CLEAR}`, detail: `run ${OSC_TITLE}gone not found`, request_id: `req${CLEAR}` }),
  },
  '/agent/runs/hostile/events': {
    type: 'text/event-stream',
    body: [
      event(1, 'output', { text: `hello ${OSC_TITLE}${CLEAR}world\n` }),
      event(2, 'status', { message: `busy${CLEAR}` }),
      event(3, 'state', { from: 'INPROGRESS', to: 'SUCCEEDED' }),
    ]
      .map((e) => `id: ${e.id}\ndata: ${JSON.stringify(e)}\n\n`)
      .join(''),
  },
  '/agent/runs/bad-events/events': { type: 'text/event-stream', body: `id: 1\ndata: ${JSON.stringify({ id: 1, type: 'output' })}\n\n` },
  '/factories': { body: JSON.stringify({ factories: 'none' }) },
};

let server: Server;
let env: Record<string, string>;
/** `runs list` pages: the first points at `a`, `a` at `b`, and `b` at `a` again. */
const NEXT: Record<string, string> = { '': 'a', a: 'b', b: 'a' };
let pagesServed = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://stub');
    const path = url.pathname.replace(/^\/api\/v1/, '');
    if (path === '/agent/runs') {
      pagesServed++;
      const cursor = url.searchParams.get('cursor') ?? '';
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ runs: [run(`run-${cursor}`)], page_info: { has_next_page: true, next_cursor: NEXT[cursor] } }));
      return;
    }
    const answer = ANSWERS[path] ?? { status: 404, body: '{"error":"not_found"}' };
    response.writeHead(answer.status ?? 200, { 'content-type': answer.type ?? 'application/json' });
    response.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  env = {
    AGENTRUN_API_KEY: 'ar_stub',
    AGENTRUN_BASE_URL: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    AGENTRUN_MAX_RETRIES: '0',
  };
});

afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
);

describe("the server's text on a terminal", () => {
  it('a run title and status in the detail view: the sequences are shown, not run', async () => {
    const result = await cli(['runs', 'get', 'hostile'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('title:      \uFFFD]0;pwned\uFFFDdeploy\uFFFD[2J');
    expect(result.stdout).toContain('failed \uFFFD[2J');
    expect(result.stdout).not.toMatch(RAW_CONTROL);
  });

  it('agent output and status lines of a followed transcript', async () => {
    const result = await cli(['runs', 'follow', 'hostile'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('hello \uFFFD]0;pwned\uFFFD\uFFFD[2Jworld');
    expect(result.stdout).toContain('status: busy\uFFFD[2J');
    expect(result.stdout).not.toMatch(RAW_CONTROL);
  });

  it('--json stays exact JSON: the text reads back as it was sent, with no raw control character', async () => {
    const got = await cli(['runs', 'get', 'hostile', '--json'], { env });
    expect(got.code).toBe(0);
    expect(got.stdout).not.toMatch(RAW_CONTROL);
    expect((JSON.parse(got.stdout) as { title: string }).title).toBe(`${OSC_TITLE}deploy${CLEAR}`);
    const followed = await cli(['runs', 'follow', 'hostile', '--json'], { env });
    expect(followed.code).toBe(0);
    expect(followed.stdout).not.toMatch(RAW_CONTROL);
    const first = JSON.parse(followed.stdout.split('\n')[0] as string) as { data: { text: string } };
    expect(first.data.text).toBe(`hello ${OSC_TITLE}${CLEAR}world\n`);
  });

  it("an error's detail, code and request ID", async () => {
    const result = await cli(['runs', 'get', 'gone'], { env });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('run \uFFFD]0;pwned\uFFFDgone not found');
    expect(result.stderr).toContain('not_found\uFFFD[2J');
    expect(result.stderr).not.toMatch(RAW_CONTROL);
  });
});

describe('malformed answers exit 3', () => {
  it('a 200 that is not JSON', async () => {
    const result = await cli(['runs', 'get', 'not-json'], { env });
    expect(result).toMatchObject({ code: 3, stdout: '' });
    expect(result.stderr).toContain('is not JSON');
  });

  it('a JSON answer of the wrong shape, for a run and for a list', async () => {
    const run = await cli(['runs', 'get', 'wrong-shape'], { env });
    expect(run).toMatchObject({ code: 3, stdout: '' });
    expect(run.stderr).toContain('not what the API answers');
    const list = await cli(['factory', 'list'], { env });
    expect(list).toMatchObject({ code: 3, stdout: '' });
    // POST /factories answers 201 in the table; this server says 200, with a list's shape.
    const created = await cli(['factory', 'create', 'x'], { env });
    expect(created).toMatchObject({ code: 3, stdout: '' });
  });

  it('a streamed event that is not a run event', async () => {
    const result = await cli(['runs', 'follow', 'bad-events'], { env });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('not a run event');
  });

  it('runs list stops when the server repeats a cursor', async () => {
    pagesServed = 0;
    const result = await cli(['runs', 'list'], { env });
    expect(result).toMatchObject({ code: 3, stdout: '' });
    expect(result.stderr).toContain('cursor');
    expect(pagesServed).toBe(3);
  });
});

describe('input files', () => {
  it('a YAML alias bomb in apply definitions is invalid input, exit 2, at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentrun-bomb-'));
    mkdirSync(join(dir, 'webhooks'));
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 10; i++) {
      const previous = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(',')}]`);
    }
    writeFileSync(join(dir, 'webhooks', 'bomb.yaml'), `${levels.join('\n')}\nauthMode: token\n`);
    const started = Date.now();
    const result = await cli(['apply', dir, '--factory', 'f1'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('bomb.yaml');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a YAML alias bomb in --mcp is invalid input, exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentrun-bomb-'));
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 10; i++)
      levels.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      );
    writeFileSync(join(dir, 'mcp.yaml'), levels.join('\n'));
    const result = await cli(['run', 'hi', '--mcp', join(dir, 'mcp.yaml')], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('mcp.yaml');
  });
});
