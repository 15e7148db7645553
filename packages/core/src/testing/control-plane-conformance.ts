import { describe, expect, it } from 'vitest';
import type { AutomationRecord, FactoryRecord, SecretRecord, WebhookRecord } from '../control/records.js';
import type { Store } from '../store/store.js';
import { isoTime } from '../util/clock.js';
import { newId } from '../util/ids.js';

const T0 = Date.UTC(2026, 0, 1);
const at = (ms: number) => isoTime(T0 + ms);

export const makeFactory = (o: Partial<FactoryRecord> = {}): FactoryRecord => ({
  uid: newId(),
  teamUid: 'team-1',
  name: 'Factory',
  foremanAgentIdentityUid: null,
  createdAt: at(0),
  updatedAt: at(0),
  ...o,
});

export const makeSecret = (o: Partial<SecretRecord> = {}): SecretRecord => ({
  teamUid: 'team-1',
  name: `secret-${newId().slice(0, 8)}`,
  ciphertext: 'v1.sealed',
  createdAt: at(0),
  updatedAt: at(0),
  ...o,
});

export const makeWebhook = (o: Partial<WebhookRecord> = {}): WebhookRecord => ({
  uid: newId(),
  teamUid: 'team-1',
  factoryUid: 'factory-1',
  name: 'GitHub',
  authMode: 'token',
  signatureScheme: null,
  secretName: 'gh-secret',
  deliveryIdHeader: null,
  enabled: true,
  createdAt: at(0),
  updatedAt: at(0),
  deletedAt: null,
  ...o,
});

export const makeAutomation = (o: Partial<AutomationRecord> = {}): AutomationRecord => ({
  id: newId(),
  teamUid: 'team-1',
  factoryUid: 'factory-1',
  name: 'Triage',
  prompt: 'Triage the issue',
  enabled: true,
  config: { model_id: 'm' },
  triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: ['w1'], payload: { action: ['opened'] } } }],
  createdAt: at(0),
  updatedAt: at(0),
  ...o,
});

/** The control-plane part of the store conformance suite (see `describeStoreConformance`). */
export function describeControlPlaneConformance(current: () => Store): void {
  describe('factories', () => {
    it('round-trips, scopes to the team, lists oldest first and finds by foreman', async () => {
      const store = current();
      const a = makeFactory({ createdAt: at(2), foremanAgentIdentityUid: 'agent-a' });
      const b = makeFactory({ createdAt: at(1) });
      const other = makeFactory({ teamUid: 'team-2', foremanAgentIdentityUid: 'agent-a' });
      for (const f of [a, b, other]) await store.factories.create(f);
      expect(await store.factories.get('team-1', a.uid)).toEqual(a);
      expect(await store.factories.get('team-2', a.uid)).toBeUndefined();
      expect((await store.factories.list('team-1')).map((f) => f.uid)).toEqual([b.uid, a.uid]);
      expect(await store.factories.findByForeman('team-1', 'agent-a')).toEqual(a);
      expect(await store.factories.findByForeman('team-2', 'agent-a')).toEqual(other);
      expect(await store.factories.findByForeman('team-1', 'nobody')).toBeUndefined();
    });

    it('gives a foreman identity to one factory per team: a second is refused and not stored', async () => {
      const store = current();
      const first = makeFactory({ foremanAgentIdentityUid: 'agent-x' });
      expect(await store.factories.create(first)).toEqual({ created: true });
      const second = makeFactory({ foremanAgentIdentityUid: 'agent-x' });
      expect(await store.factories.create(second)).toEqual({ created: false, reason: 'foreman_taken' });
      expect(await store.factories.get('team-1', second.uid)).toBeUndefined();
      expect(await store.factories.findByForeman('team-1', 'agent-x')).toEqual(first);
      expect(await store.factories.create(makeFactory({ teamUid: 'team-2', foremanAgentIdentityUid: 'agent-x' }))).toEqual({
        created: true,
      });
      expect(await store.factories.create(makeFactory({ foremanAgentIdentityUid: null }))).toEqual({ created: true });
      expect(await store.factories.create(makeFactory({ foremanAgentIdentityUid: null }))).toEqual({ created: true });
      expect(await store.factories.list('team-1')).toHaveLength(3);
    });

    it('of two racing creates with one foreman, stores one', async () => {
      const store = current();
      const results = await Promise.all(
        Array.from({ length: 4 }, () => store.factories.create(makeFactory({ foremanAgentIdentityUid: 'agent-race' }))),
      );
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(results.filter((r) => !r.created)).toEqual(Array(3).fill({ created: false, reason: 'foreman_taken' }));
      expect((await store.factories.list('team-1')).filter((f) => f.foremanAgentIdentityUid === 'agent-race')).toHaveLength(1);
    });
  });

  describe('team secrets', () => {
    it('creates, replaces (keeping createdAt), lists by name, scopes and deletes', async () => {
      const store = current();
      expect(await store.secrets.put(makeSecret({ name: 'b', ciphertext: 'c1' }))).toEqual({ created: true });
      expect(await store.secrets.put(makeSecret({ name: 'a' }))).toEqual({ created: true });
      const replaced = await store.secrets.put(makeSecret({ name: 'b', ciphertext: 'c2', createdAt: at(50), updatedAt: at(50) }));
      expect(replaced).toEqual({ created: false });
      expect(await store.secrets.get('team-1', 'b')).toMatchObject({ ciphertext: 'c2', createdAt: at(0), updatedAt: at(50) });
      expect(await store.secrets.get('team-2', 'b')).toBeUndefined();
      expect((await store.secrets.list('team-1')).map((s) => s.name)).toEqual(['a', 'b']);
      expect(await store.secrets.delete('team-1', 'b')).toBe(true);
      expect(await store.secrets.delete('team-1', 'b')).toBe(false);
      expect(await store.secrets.get('team-1', 'b')).toBeUndefined();
    });
  });

  describe('webhooks', () => {
    it('creates a webhook with its generated secret, atomically', async () => {
      const store = current();
      const secret = makeSecret({ name: 'wh-secret' });
      const webhook = makeWebhook({ secretName: 'wh-secret' });
      expect(await store.webhooks.create({ webhook, secret, maxPerFactory: 20 })).toEqual({ created: true });
      expect(await store.webhooks.get('team-1', 'factory-1', webhook.uid)).toEqual(webhook);
      expect(await store.webhooks.getByUid(webhook.uid)).toEqual(webhook);
      expect(await store.secrets.get('team-1', 'wh-secret')).toEqual(secret);
      // A second webhook generating the same secret name writes nothing.
      const clash = makeWebhook({ secretName: 'wh-secret' });
      expect(
        await store.webhooks.create({ webhook: clash, secret: makeSecret({ name: 'wh-secret', ciphertext: 'other' }), maxPerFactory: 20 }),
      ).toEqual({
        created: false,
        reason: 'secret_exists',
      });
      expect(await store.webhooks.getByUid(clash.uid)).toBeUndefined();
      expect((await store.secrets.get('team-1', 'wh-secret'))?.ciphertext).toBe(secret.ciphertext);
    });

    it('refuses the webhook past the limit, counting live webhooks only, and leaves its secret unwritten', async () => {
      const store = current();
      for (let i = 0; i < 3; i++) expect((await store.webhooks.create({ webhook: makeWebhook(), maxPerFactory: 3 })).created).toBe(true);
      const extraSecret = makeSecret({ name: 'extra' });
      expect(await store.webhooks.create({ webhook: makeWebhook(), secret: extraSecret, maxPerFactory: 3 })).toEqual({
        created: false,
        reason: 'limit',
      });
      expect(await store.secrets.get('team-1', 'extra')).toBeUndefined();
      const [first] = await store.webhooks.list('team-1', 'factory-1');
      await store.webhooks.update('team-1', 'factory-1', first?.uid as string, { deletedAt: at(9) }, at(9));
      expect((await store.webhooks.create({ webhook: makeWebhook(), maxPerFactory: 3 })).created).toBe(true);
      // Another factory has its own count.
      expect((await store.webhooks.create({ webhook: makeWebhook({ factoryUid: 'factory-2' }), maxPerFactory: 3 })).created).toBe(true);
    });

    it('never exceeds the limit under concurrent creates', async () => {
      const store = current();
      const results = await Promise.all(
        Array.from({ length: 8 }, () => store.webhooks.create({ webhook: makeWebhook(), maxPerFactory: 5 })),
      );
      expect(results.filter((r) => r.created)).toHaveLength(5);
      expect(await store.webhooks.list('team-1', 'factory-1')).toHaveLength(5);
    });

    it('updates live webhooks only, lists live ones oldest first, and keeps deleted ones readable', async () => {
      const store = current();
      const a = makeWebhook({ createdAt: at(2), deliveryIdHeader: 'X-Id' });
      const b = makeWebhook({ createdAt: at(1) });
      for (const w of [a, b]) await store.webhooks.create({ webhook: w, maxPerFactory: 20 });
      expect((await store.webhooks.list('team-1', 'factory-1')).map((w) => w.uid)).toEqual([b.uid, a.uid]);
      const off = await store.webhooks.update('team-1', 'factory-1', a.uid, { enabled: false, deliveryIdHeader: null }, at(5));
      expect(off).toMatchObject({ enabled: false, deliveryIdHeader: null, updatedAt: at(5), deletedAt: null });
      expect(await store.webhooks.update('team-2', 'factory-1', a.uid, { enabled: true }, at(6))).toBeUndefined();
      await store.webhooks.update('team-1', 'factory-1', a.uid, { deletedAt: at(7) }, at(7));
      expect((await store.webhooks.list('team-1', 'factory-1')).map((w) => w.uid)).toEqual([b.uid]);
      expect(await store.webhooks.get('team-1', 'factory-1', a.uid)).toMatchObject({ deletedAt: at(7) });
      expect(await store.webhooks.update('team-1', 'factory-1', a.uid, { enabled: true }, at(8))).toBeUndefined();
      expect(await store.webhooks.get('team-1', 'factory-2', b.uid)).toBeUndefined();
    });
  });

  describe('automations', () => {
    it('round-trips with triggers and filters, scopes, replaces and deletes', async () => {
      const store = current();
      const a = makeAutomation({ createdAt: at(2) });
      const b = makeAutomation({ createdAt: at(1), config: null, triggers: [] });
      for (const x of [a, b]) await store.automations.create(x);
      expect(await store.automations.get('team-1', 'factory-1', a.id)).toEqual(a);
      expect(await store.automations.get('team-2', 'factory-1', a.id)).toBeUndefined();
      expect((await store.automations.list('team-1', 'factory-1')).map((x) => x.id)).toEqual([b.id, a.id]);
      const changed = { ...a, name: 'Renamed', enabled: false, updatedAt: at(9), createdAt: at(99) };
      expect(await store.automations.replace(changed)).toBe(true);
      expect(await store.automations.get('team-1', 'factory-1', a.id)).toEqual({ ...changed, createdAt: a.createdAt });
      expect(await store.automations.replace(makeAutomation())).toBe(false);
      expect(await store.automations.delete('team-2', 'factory-1', a.id)).toBe(false);
      expect(await store.automations.delete('team-1', 'factory-1', a.id)).toBe(true);
      expect(await store.automations.get('team-1', 'factory-1', a.id)).toBeUndefined();
    });

    it('keeps the key order of filters as written, on every read (jsonb alone would sort them)', async () => {
      const store = current();
      // jsonb orders keys shorter first, then by bytes: this order is the reverse of that.
      const payload = { pull_request: { base: { ref: ['main'] }, b: 1 }, zz: ['x'], a: { $exists: true } };
      const order = (t: AutomationRecord['triggers']) => {
        const p = t[0]?.filter.payload as Record<string, Record<string, unknown>>;
        return [Object.keys(p), Object.keys(p.pull_request ?? {})];
      };
      const a = makeAutomation({ triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: ['w-order'], payload } }] });
      await store.automations.create(a);
      const written = [
        ['pull_request', 'zz', 'a'],
        ['base', 'b'],
      ];
      expect(order((await store.automations.get('team-1', 'factory-1', a.id))?.triggers ?? [])).toEqual(written);
      expect(order((await store.automations.list('team-1', 'factory-1')).find((x) => x.id === a.id)?.triggers ?? [])).toEqual(written);
      expect(order((await store.automations.listForWebhook('w-order'))[0]?.triggers ?? [])).toEqual(written);
      const replaced = {
        ...a,
        triggers: [{ ...a.triggers[0], filter: { webhook_ids: ['w-order'], payload: { zz: 1, a: 2 } } }],
      } as AutomationRecord;
      await store.automations.replace(replaced);
      expect(Object.keys((await store.automations.get('team-1', 'factory-1', a.id))?.triggers[0]?.filter.payload as object)).toEqual([
        'zz',
        'a',
      ]);
    });
  });
}
