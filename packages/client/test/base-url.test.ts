import { describe, expect, it } from 'vitest';
import { AgentRunClient, type Fetch } from '../src/index.js';

/**
 * `baseURL` is where agentrun is mounted (docs/client.md, "Install and construct"); one written for
 * the published `oz-agent-sdk` clients, ending in `/api/v1`, reaches the same routes instead of
 * `/api/v1/api/v1/…`.
 */

/** The URL each call of a client on `baseURL` goes to (the stub fetch answers a run). */
const urlsOf = async (baseURL: string) => {
  const urls: string[] = [];
  const fetch: Fetch = async (input) => {
    urls.push(input);
    return Response.json({ run_id: 'r1', state: 'QUEUED' });
  };
  const client = new AgentRunClient({ apiKey: 'k', baseURL, fetch });
  await client.runs.get('r1');
  return { baseURL: client.baseURL, urls };
};

describe('baseURL', () => {
  it.each([
    ['https://agents.example.com', 'https://agents.example.com'],
    ['https://agents.example.com/', 'https://agents.example.com'],
    ['https://agents.example.com/api/v1', 'https://agents.example.com'],
    ['https://agents.example.com/api/v1/', 'https://agents.example.com'],
    ['https://example.com/agents/api/v1//', 'https://example.com/agents'],
    ['https://example.com/agents', 'https://example.com/agents'],
    ['/agents/api/v1', '/agents'],
  ])('%s is the mount %s, and a run is read at <mount>/api/v1/agent/runs/{id}', async (given, mount) => {
    const { baseURL, urls } = await urlsOf(given);
    expect(baseURL).toBe(mount);
    expect(urls[0]).toBe(`${mount}/api/v1/agent/runs/r1`);
  });

  it('keeps /api/v1 that is not a path suffix: a host named api, a version other than v1, a path that only ends alike', async () => {
    expect((await urlsOf('http://api/v1')).urls[0]).toBe('http://api/v1/api/v1/agent/runs/r1');
    expect((await urlsOf('https://x.example/api/v2')).urls[0]).toBe('https://x.example/api/v2/api/v1/agent/runs/r1');
    expect((await urlsOf('https://x.example/myapi/v1')).urls[0]).toBe('https://x.example/myapi/v1/api/v1/agent/runs/r1');
  });
});
