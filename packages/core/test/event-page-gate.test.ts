import { createMemoryStore } from '@agentrun/store-memory';
import { describe, expect, it } from 'vitest';
import { EVENT_PAGE_BUILDS } from '../src/http/event-page-gate.js';
import type { Store } from '../src/store/store.js';
import { expectProblem, setup } from './helpers.js';

// Page builds are bounded per handler (docs/run-api.md, "A page"): past the builds running and the
// requests waiting for a place, a reader is answered 503 with Retry-After at once, and nothing
// else (another route, the live stream) waits on them.

/** A memory store whose event reads wait until `release()`. */
function heldReads() {
  const store = createMemoryStore();
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let reading = 0;
  const held: Store = {
    ...store,
    runEvents: {
      ...store.runEvents,
      list: async (runId, query) => {
        reading++;
        await released;
        return store.runEvents.list(runId, query);
      },
    },
  };
  return { store: held, release, reading: () => reading };
}

describe('concurrent event pages', () => {
  it('builds a bounded number at once, queues a bounded number, and answers the rest 503 with Retry-After', async () => {
    const reads = heldReads();
    const h = await setup({ store: reads.store });
    const { body } = await h.json<{ run_id: string }>('POST', '/agent/run', { body: { prompt: 'many readers' } });
    const page = () => h.call('GET', `/agent/runs/${body.run_id}/events?limit=1000`);
    const admitted = EVENT_PAGE_BUILDS.concurrent + EVENT_PAGE_BUILDS.waiting;
    const pending = Array.from({ length: admitted }, page);
    await new Promise((r) => setTimeout(r, 10));
    expect(reads.reading()).toBe(EVENT_PAGE_BUILDS.concurrent);
    const refused = await page();
    expect(refused.headers.get('retry-after')).toBe('1');
    const problem = await expectProblem(refused, 503, 'unavailable');
    expect(problem.retryable).toBe(true);
    // Other routes do not wait on page builds.
    expect((await h.call('GET', `/agent/runs/${body.run_id}`)).status).toBe(200);
    reads.release();
    const answers = await Promise.all(pending);
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    expect(reads.reading()).toBe(admitted);
    expect((await page()).status).toBe(200);
    expect(h.errors).toEqual([]);
  });
});
