import { createAgentRunHandler, createApiKey } from '@agentrun/core';
import { createMemoryStore } from '@agentrun/store-memory';
import type { BenchGroup } from './run.js';

/** The run API through the core handler on the memory store: no network, so this is core's own cost. */
export const runsGroup: BenchGroup = {
  name: 'runs',
  description: 'run API through the core handler, memory store',
  async run() {
    const store = createMemoryStore();
    const handler = createAgentRunHandler({ store });
    const key = await createApiKey(store.apiKeys, { type: 'service_account', uid: 'bench', team_uid: 'team' });
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const base = 'http://bench.local/api/v1';

    const creates = 20_000;
    let t = performance.now();
    for (let i = 0; i < creates; i++) {
      const body = JSON.stringify({ prompt: `task ${i}`, config: { name: i % 2 ? 'odd' : 'even', model_id: 'm' } });
      const res = await handler(new Request(`${base}/agent/run`, { method: 'POST', headers, body }));
      if (res.status !== 200) throw new Error(`create answered ${res.status}`);
    }
    const createPerS = creates / ((performance.now() - t) / 1000);

    const lists = 200;
    t = performance.now();
    for (let i = 0; i < lists; i++) {
      const res = await handler(new Request(`${base}/agent/runs?name=odd&limit=50&sort_by=created_at`, { headers }));
      if (res.status !== 200) throw new Error(`list answered ${res.status}`);
      await res.arrayBuffer();
    }
    const listMs = (performance.now() - t) / lists;
    return { 'runs.memory_create_per_s': createPerS, 'runs.memory_list_20k_ms': listMs };
  },
};
