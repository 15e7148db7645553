import { type AgentRunHandler, createAgentRunHandler, createApiKey } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import { expect } from 'vitest';

/** The real core handler on an in-memory store, with an API key for a test principal. */
export async function realCore(): Promise<{ handler: AgentRunHandler; key: string }> {
  const store = createMemoryStore();
  const handler = createAgentRunHandler({ store, onError: (error) => expect.fail(String(error)) });
  return { handler, key: await createApiKey(store.apiKeys, testPrincipal()) };
}

/** Create a run through `base` (where the handler is mounted) and read it back. */
export async function expectRunRoundTrip(base: string, key: string): Promise<void> {
  const auth = { authorization: `Bearer ${key}` };
  const created = await fetch(`${base}/api/v1/agent/run`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'Fix the flaky test' }),
  });
  expect(created.status).toBe(200);
  const run = (await created.json()) as { run_id: string; task_id: string; state: string };
  expect(run).toEqual({ run_id: expect.any(String), task_id: run.run_id, state: 'QUEUED' });

  const fetched = await fetch(`${base}/api/v1/agent/runs/${run.run_id}`, { headers: auth });
  expect(fetched.status).toBe(200);
  expect(await fetched.json()).toMatchObject({ run_id: run.run_id, state: 'QUEUED', prompt: 'Fix the flaky test' });

  const anonymous = await fetch(`${base}/api/v1/agent/runs/${run.run_id}`);
  expect(anonymous.status).toBe(401);
}
