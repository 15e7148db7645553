import { describe, expect, it } from 'vitest';
import { AgentRunClient, APIResponseError, type Fetch } from '../src/index.js';

/**
 * Success answers that are not what the operation answers (a broken or hostile server): a body that is
 * not JSON, one the caller's `checkAnswer` refuses, pages whose cursor came before. Each is an
 * `APIResponseError`, never a bare SyntaxError or an endless walk. A fake `fetch` answers.
 */

const answering =
  (answer: (url: URL) => { status?: number; body: string }): Fetch =>
  async (input) => {
    const { status = 200, body } = answer(new URL(input));
    return new Response(body, { status, headers: { 'content-type': 'application/json' } });
  };

const clientWith = (fetch: Fetch, extra: Partial<ConstructorParameters<typeof AgentRunClient>[0]> = {}) =>
  new AgentRunClient({ apiKey: 'ar_test', baseURL: 'http://agentrun.test', maxRetries: 0, fetch, ...extra });

const page = (ids: string[], next?: string) =>
  JSON.stringify({ runs: ids.map((run_id) => ({ run_id })), page_info: { has_next_page: next !== undefined, next_cursor: next } });

describe('malformed success answers', () => {
  it('a 200 that is not JSON is an APIResponseError naming the operation', async () => {
    const client = clientWith(answering(() => ({ body: '<html>proxy login</html>' })));
    const error = await client.runs.get('r1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIResponseError);
    expect((error as Error).message).toContain('getRun: the answer (HTTP 200) is not JSON');
  });

  it('checkAnswer sees each JSON answer with its operation and status, and what it throws comes out', async () => {
    const seen: unknown[] = [];
    const client = clientWith(
      answering(() => ({ status: 201, body: '{"uid":"f1"}' })),
      {
        checkAnswer: (operationId, status, body) => {
          seen.push([operationId, status, body]);
          throw new APIResponseError('wrong shape');
        },
      },
    );
    await expect(client.factories.create({ name: 'x' })).rejects.toThrow('wrong shape');
    expect(seen).toEqual([['createFactory', 201, { uid: 'f1' }]]);
  });

  it('a page cursor answered twice stops the walk with an APIResponseError', async () => {
    // Page 1 → cursor a; a → b; b → a again: without the check this walks forever.
    const next: Record<string, string> = { '': 'a', a: 'b', b: 'a' };
    const client = clientWith(
      answering((url) => {
        const cursor = url.searchParams.get('cursor') ?? '';
        return { body: page([`run-${cursor}`], next[cursor]) };
      }),
    );
    const ids: string[] = [];
    const walk = async () => {
      for await (const run of client.runs.list()) ids.push(run.run_id);
    };
    await expect(walk()).rejects.toThrow(APIResponseError);
    expect(ids).toEqual(['run-', 'run-a', 'run-b']);
  });

  it('a page without its list of items is an APIResponseError', async () => {
    const client = clientWith(answering(() => ({ body: '{"page_info":{}}' })));
    const walk = async () => {
      for await (const _ of client.runs.list()) expect.unreachable();
    };
    await expect(walk()).rejects.toThrow(APIResponseError);
  });
});
