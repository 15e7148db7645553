import type { Store } from '@agentrun/core';
import { makeAuditEvent, makeAutomation, makeSecret, makeWebhook } from '@agentrun/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from './support/database.js';

// What the conformance suite cannot show on PostgreSQL: a change and its audit event commit
// together or not at all (docs/operations.md, "Audit"). An event whose insert fails (its id is
// taken) must take its change down with it; the memory store writes both in one synchronous step.
let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase('audit');
});
afterAll(() => db?.close());

describe('a change and its audit event are one transaction', () => {
  let store: Store;
  const taken = makeAuditEvent({ id: 'taken' });
  const failing = () => makeAuditEvent({ id: 'taken', kind: 'webhook.created' });
  const eventIds = async () => (await store.audit.list('team-1', { limit: 100 })).map((e) => e.id);

  beforeAll(async () => {
    store = await db.freshStore();
    await store.audit.record(taken);
  });

  it('a secret write whose event fails is not written', async () => {
    await expect(store.secrets.put(makeSecret({ name: 'rolled-back' }), failing())).rejects.toThrow();
    expect(await store.secrets.get('team-1', 'rolled-back')).toBeUndefined();
  });

  it('a webhook create or update whose event fails is not written', async () => {
    const webhook = makeWebhook({ factoryUid: 'f-audit' });
    await expect(store.webhooks.create({ webhook, maxPerFactory: 5, audit: failing() })).rejects.toThrow();
    expect(await store.webhooks.getByUid(webhook.uid)).toBeUndefined();
    await store.webhooks.create({ webhook, maxPerFactory: 5 });
    await expect(
      store.webhooks.update('team-1', 'f-audit', webhook.uid, { enabled: false }, webhook.updatedAt, failing()),
    ).rejects.toThrow();
    expect((await store.webhooks.getByUid(webhook.uid))?.enabled).toBe(true);
  });

  it('an automation create, replace or delete whose event fails is not written', async () => {
    const a = makeAutomation();
    await expect(store.automations.create(a, failing())).rejects.toThrow();
    expect(await store.automations.get('team-1', a.factoryUid, a.id)).toBeUndefined();
    await store.automations.create(a);
    await expect(store.automations.replace({ ...a, name: 'Renamed' }, failing())).rejects.toThrow();
    await expect(store.automations.delete('team-1', a.factoryUid, a.id, failing())).rejects.toThrow();
    expect((await store.automations.get('team-1', a.factoryUid, a.id))?.name).toBe(a.name);
  });

  it('a definitions write whose event fails is not written', async () => {
    const set = { teamUid: 'team-1', factoryUid: 'f-defs', version: 1, appliedAt: taken.at, webhooks: [], automations: [] };
    const write = {
      set,
      expectedVersion: 0,
      putSecrets: [makeSecret({ name: 'defs-copy' })],
      deleteSecrets: [],
      putWebhooks: [],
      putAutomations: [],
      deleteAutomations: [],
      maxWebhooksPerFactory: 5,
    };
    await expect(store.definitions.write({ ...write, audit: failing() })).rejects.toThrow();
    expect(await store.definitions.get('team-1', 'f-defs')).toBeUndefined();
    expect(await store.secrets.get('team-1', 'defs-copy')).toBeUndefined();
  });

  it('kept only the event that was there before', async () => {
    expect(await eventIds()).toEqual(['taken']);
  });
});
