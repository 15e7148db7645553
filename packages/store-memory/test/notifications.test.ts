import { describeNotificationsConformance, makeRun } from '@agentrun/core/testing';
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../src/index.js';

describeNotificationsConformance('memory', { create: () => createMemoryStore() });

describe('memory notifications', () => {
  it('are delivered after the write, never inside it', async () => {
    const store = createMemoryStore();
    const heard: string[] = [];
    await store.notifications?.listen((n) => heard.push(n.type));
    const run = makeRun();
    const writing = store.runs.create({ run, attachments: [] });
    // The write ran synchronously up to its return; the listener has not run yet.
    expect(heard).toEqual([]);
    await writing;
    await Promise.resolve();
    expect(heard).toEqual(['run.queued']);
  });

  it('a listener that throws is reported to onError', async () => {
    const errors: unknown[] = [];
    const store = createMemoryStore({ onError: (e) => errors.push(e) });
    const failure = new Error('listener failed');
    await store.notifications?.listen(() => {
      throw failure;
    });
    let heard = false;
    await store.notifications?.listen(() => {
      heard = true;
    });
    await store.runs.create({ run: makeRun(), attachments: [] });
    await new Promise((r) => setTimeout(r, 0));
    expect(heard).toBe(true);
    expect(errors).toEqual([failure]);
  });

  it('close() forgets every listener', async () => {
    const store = createMemoryStore();
    const heard: string[] = [];
    await store.notifications?.listen((n) => heard.push(n.type));
    await store.close?.();
    await store.runs.create({ run: makeRun(), attachments: [] });
    await new Promise((r) => setTimeout(r, 0));
    expect(heard).toEqual([]);
  });
});
