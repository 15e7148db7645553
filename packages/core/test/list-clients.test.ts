import OzAPI from 'oz-agent-sdk';
import { beforeEach, describe, expect, it } from 'vitest';
import { type Harness, setup } from './helpers.js';

// Every list request either published client can build, sent as that client encodes it, is accepted
// (docs/run-api.md, "List runs"). The TypeScript client runs unchanged over the handler; the Python
// client's requests are written out as it builds them (warpdotdev/oz-sdk-python:
// types/agent/run_list_params.py; `Querystring(array_format="repeat")`, dicts in brackets,
// `urllib.parse.urlencode`, datetimes as `isoformat()`).

let h: Harness;
let sent: URL[];
let client: OzAPI;

beforeEach(async () => {
  h = await setup({ skills: ['o/r:a', 'o/r:b'] });
  sent = [];
  client = new OzAPI({
    apiKey: h.key,
    baseURL: 'http://agentrun.test/api/v1',
    maxRetries: 0,
    fetch: async (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      sent.push(new URL(request.url));
      return h.handler(request);
    },
  });
  for (const [title, skill] of [
    ['beta', 'o/r:b'],
    ['alpha', undefined],
    ['Gamma', 'o/r:a'],
  ] as const) {
    const res = await h.json('POST', '/agent/run', {
      body: { prompt: 'listed', title, ...(skill ? { config: { skill_spec: skill } } : {}) },
    });
    expect(res.status).toBe(200);
  }
});

describe('TypeScript oz-agent-sdk', () => {
  it('sends every RunListParams field, arrays repeated, and gets a page', async () => {
    const page = await client.agent.runs.list({
      artifact_type: 'PULL_REQUEST',
      created_after: '2000-01-01T00:00:00Z',
      created_before: '9999-01-01T00:00:00+01:00',
      creator: 'someone',
      environment_id: 'env',
      limit: 5,
      model_id: 'm',
      name: 'n',
      q: 'listed',
      schedule_id: 's',
      skill: 'o/r:b',
      skill_spec: 'o/r:b',
      source: 'API',
      state: ['QUEUED', 'FAILED'],
      updated_after: '2000-01-01T00:00:00.000Z',
    });
    expect(page.runs).toEqual([]); // artifact_type and schedule_id match nothing here
    expect(sent.at(-1)?.searchParams.getAll('state')).toEqual(['QUEUED', 'FAILED']);
    expect(h.errors).toEqual([]);
  });

  it('lists by repeated state and walks pages with the cursor it is given', async () => {
    const ids: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 5; i++) {
      const page = await client.agent.runs.list({ state: ['QUEUED', 'CLAIMED'], limit: 1, q: 'listed', ...(cursor ? { cursor } : {}) });
      ids.push(...page.runs.map((run) => run.run_id));
      cursor = page.page_info.next_cursor ?? undefined;
      if (!page.page_info.has_next_page) break;
    }
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
  });
});

describe('Python oz-agent-sdk (requests as it encodes them)', () => {
  const list = async (query: string) => {
    const res = await h.json<{ runs: { title: string }[]; page_info: unknown }>('GET', `/agent/runs?${query}`);
    expect(res.status, `${query}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body;
  };

  it.each([
    // client.agent.runs.list(state=["QUEUED", "FAILED"])
    'state=QUEUED&state=FAILED',
    // sort_by, sort_order, limit
    'limit=10&sort_by=title&sort_order=asc',
    'sort_by=agent&sort_order=desc',
    'sort_by=updated_at',
    'sort_by=created_at',
    // aware and naive datetimes, microseconds (isoformat)
    'created_after=2026-01-01T00%3A00%3A00%2B00%3A00',
    'created_before=2026-01-01T12%3A30%3A00.123456-05%3A00',
    'updated_after=2026-01-01T00%3A00%3A00',
    // quote_plus: spaces as +, / and : escaped
    'q=fix+the+bug&skill=owner%2Frepo%3Apath%2Fto%2FSKILL.md',
    'skill_spec=owner%2Frepo%3Askill&skill=owner%2Frepo%3Askill',
    'name=n&model_id=m&creator=c&environment_id=e&source=API',
    'executor=u&execution_location=REMOTE',
    'execution_location=LOCAL',
    'artifact_type=SCREENSHOT',
    'artifact_type=FILE',
    'artifact_type=EXTERNAL_REFERENCE',
    'schedule_id=sched_1',
    // metadata={"ticket_id": "VIS-238", "team": "core"}: nested_format brackets
    'metadata%5Bticket_id%5D=VIS-238&metadata%5Bteam%5D=core',
  ])('GET /agent/runs?%s', async (query) => {
    await list(query);
    expect(h.errors).toEqual([]);
  });

  it('sorts by title and by agent (skill, runs without one last)', async () => {
    expect((await list('q=listed&sort_by=title&sort_order=asc')).runs.map((r) => r.title)).toEqual(['Gamma', 'alpha', 'beta']);
    expect((await list('q=listed&sort_by=title&sort_order=desc')).runs.map((r) => r.title)).toEqual(['beta', 'alpha', 'Gamma']);
    expect((await list('q=listed&sort_by=agent&sort_order=asc')).runs.map((r) => r.title)).toEqual(['Gamma', 'beta', 'alpha']);
    expect((await list('q=listed&sort_by=agent&sort_order=desc')).runs.map((r) => r.title)).toEqual(['beta', 'Gamma', 'alpha']);
  });

  it('config_name is the alias of name; both with different values is a 400', async () => {
    await h.json('POST', '/agent/run', { body: { prompt: 'named', config: { name: 'cfg' } } });
    expect((await list('config_name=cfg')).runs).toHaveLength(1);
    expect((await list('config_name=cfg&name=cfg')).runs).toHaveLength(1);
    const res = await h.call('GET', '/agent/runs?config_name=cfg&name=other');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ detail: expect.stringMatching(/config_name/) });
  });
});
