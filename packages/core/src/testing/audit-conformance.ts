import { describe, expect, it } from 'vitest';
import type { AuditEventRecord } from '../audit/records.js';
import type { Store } from '../store/store.js';
import { isoTime } from '../util/clock.js';
import { newId } from '../util/ids.js';
import { makeAutomation, makeSecret, makeWebhook } from './control-plane-conformance.js';
import { makeDelivery } from './ingress-conformance.js';

const T0 = Date.UTC(2026, 0, 1);
const at = (ms: number) => isoTime(T0 + ms);

export const makeAuditEvent = (o: Partial<AuditEventRecord> = {}): AuditEventRecord => ({
  id: newId(),
  teamUid: 'team-1',
  at: at(0),
  kind: 'secret.written',
  actorType: 'user',
  actorId: 'user-1',
  targetType: 'secret',
  targetId: 's1',
  factoryUid: null,
  detail: { name: 'x', count: 2, ok: true, none: null },
  ...o,
});

const all = { limit: 100 };

/**
 * The audit part of the store conformance suite (see `describeStoreConformance`; docs/operations.md,
 * "Audit"): the log's reads, and that a control-plane write stores its event exactly when it
 * changes something.
 */
export function describeAuditConformance(current: () => Store): void {
  describe('audit log', () => {
    it('lists a team’s events newest first (time, then id), with every field kept', async () => {
      const store = current();
      const a = makeAuditEvent({ id: 'a', at: at(10) });
      const b = makeAuditEvent({ id: 'b', at: at(20) });
      const c = makeAuditEvent({ id: 'c', at: at(20) });
      const other = makeAuditEvent({ teamUid: 'team-2' });
      for (const e of [a, c, other, b]) await store.audit.record(e);
      expect(await store.audit.list('team-1', all)).toEqual([c, b, a]);
      expect(await store.audit.list('team-2', all)).toEqual([other]);
    });

    it('filters by kinds, actor, target and time range, and pages after a position', async () => {
      const store = current();
      const events = [
        makeAuditEvent({ at: at(1), kind: 'webhook.created', actorId: 'u1', targetId: 'w1' }),
        makeAuditEvent({ at: at(2), kind: 'webhook.deleted', actorId: 'u2', targetId: 'w1' }),
        makeAuditEvent({ at: at(3), kind: 'secret.written', actorId: 'u1', targetId: 's1' }),
        makeAuditEvent({ at: at(4), kind: 'automation.created', actorId: 'u2', targetId: 'a1' }),
      ];
      for (const e of events) await store.audit.record(e);
      const ids = async (q: Parameters<Store['audit']['list']>[1]) => (await store.audit.list('team-1', q)).map((e) => e.at);
      expect(await ids({ ...all, kinds: ['webhook.created', 'webhook.deleted'] })).toEqual([at(2), at(1)]);
      expect(await ids({ ...all, actorId: 'u1' })).toEqual([at(3), at(1)]);
      expect(await ids({ ...all, targetId: 'w1' })).toEqual([at(2), at(1)]);
      expect(await ids({ ...all, since: at(2), until: at(4) })).toEqual([at(3), at(2)]);
      const third = events[2] as AuditEventRecord;
      expect(await ids({ limit: 1, after: { at: third.at, id: third.id } })).toEqual([at(2)]);
    });

    it('reads the team’s delivery log newest first, without payloads, by status, webhook and range', async () => {
      const store = current();
      const d1 = makeDelivery({ receivedAt: at(1), webhookUid: 'w1' });
      const d2 = makeDelivery({ receivedAt: at(2), webhookUid: 'w2', status: 'Rejected (auth)', identity: null, payload: null });
      const d3 = makeDelivery({ receivedAt: at(3), webhookUid: 'w1', teamUid: 'team-2' });
      await store.deliveries.accept({ delivery: d1, runs: [] });
      await store.deliveries.log(d2);
      await store.deliveries.accept({ delivery: d3, runs: [] });
      expect(await store.audit.deliveries('team-1', all)).toEqual([d2, { ...d1, payload: null }]);
      const ids = async (q: Parameters<Store['audit']['deliveries']>[1]) => (await store.audit.deliveries('team-1', q)).map((d) => d.id);
      expect(await ids({ ...all, statuses: ['Accepted'] })).toEqual([d1.id]);
      expect(await ids({ ...all, webhookUid: 'w2' })).toEqual([d2.id]);
      expect(await ids({ ...all, since: at(2) })).toEqual([d2.id]);
      expect(await ids({ ...all, until: at(2) })).toEqual([d1.id]);
      expect(await ids({ ...all, after: { at: d2.receivedAt, id: d2.id } })).toEqual([d1.id]);
    });

    it('sweeps events older than the cutoff and keeps the rest', async () => {
      const store = current();
      await store.audit.record(makeAuditEvent({ at: at(1) }));
      const kept = makeAuditEvent({ at: at(10) });
      await store.audit.record(kept);
      expect(await store.audit.sweep(at(10))).toBe(1);
      expect(await store.audit.list('team-1', all)).toEqual([kept]);
    });
  });

  describe('audit events of control-plane writes', () => {
    const events = (store: Store) => store.audit.list('team-1', all);

    it('stores a webhook create’s event only when the webhook is created', async () => {
      const store = current();
      const first = makeAuditEvent({ kind: 'webhook.created' });
      expect(await store.webhooks.create({ webhook: makeWebhook(), maxPerFactory: 1, audit: first })).toEqual({ created: true });
      const refused = makeAuditEvent({ kind: 'webhook.created' });
      expect(await store.webhooks.create({ webhook: makeWebhook(), maxPerFactory: 1, audit: refused })).toEqual({
        created: false,
        reason: 'limit',
      });
      expect(await events(store)).toEqual([first]);
    });

    it('stores an update’s event only when a live webhook was updated', async () => {
      const store = current();
      const w = makeWebhook({ factoryUid: 'f1' });
      await store.webhooks.create({ webhook: w, maxPerFactory: 5 });
      const toggled = makeAuditEvent({ kind: 'webhook.toggled', at: at(1) });
      expect(await store.webhooks.update('team-1', 'f1', w.uid, { enabled: false }, at(1), toggled)).toBeDefined();
      const missing = makeAuditEvent({ kind: 'webhook.toggled', at: at(2) });
      expect(await store.webhooks.update('team-1', 'f1', 'nope', { enabled: false }, at(2), missing)).toBeUndefined();
      expect(await events(store)).toEqual([toggled]);
    });

    it('stores secret writes’ events, and a delete’s only when the secret existed', async () => {
      const store = current();
      const s = makeSecret({ name: 'api' });
      const written = makeAuditEvent({ kind: 'secret.written', at: at(1) });
      await store.secrets.put(s, written);
      const deleted = makeAuditEvent({ kind: 'secret.deleted', at: at(2) });
      expect(await store.secrets.delete('team-1', 'api', deleted)).toBe(true);
      expect(await store.secrets.delete('team-1', 'api', makeAuditEvent({ kind: 'secret.deleted', at: at(3) }))).toBe(false);
      expect(await events(store)).toEqual([deleted, written]);
    });

    it('stores automation writes’ events only when the automation changed', async () => {
      const store = current();
      const a = makeAutomation();
      const created = makeAuditEvent({ kind: 'automation.created', at: at(1) });
      await store.automations.create(a, created);
      await expect(store.automations.create(a, makeAuditEvent({ kind: 'automation.created', at: at(2) }))).rejects.toThrow();
      const updated = makeAuditEvent({ kind: 'automation.updated', at: at(3) });
      expect(await store.automations.replace({ ...a, name: 'Renamed' }, updated)).toBe(true);
      expect(await store.automations.replace(makeAutomation(), makeAuditEvent({ kind: 'automation.updated', at: at(4) }))).toBe(false);
      const deleted = makeAuditEvent({ kind: 'automation.deleted', at: at(5) });
      expect(await store.automations.delete('team-1', a.factoryUid, a.id, deleted)).toBe(true);
      expect(await store.automations.delete('team-1', a.factoryUid, a.id, makeAuditEvent({ kind: 'automation.deleted', at: at(6) }))).toBe(
        false,
      );
      expect(await events(store)).toEqual([deleted, updated, created]);
    });

    it('stores a definitions write’s event only when it applies', async () => {
      const store = current();
      const set = { teamUid: 'team-1', factoryUid: 'f1', version: 1, appliedAt: at(1), webhooks: [], automations: [] };
      const write = {
        set,
        expectedVersion: 0,
        putSecrets: [],
        deleteSecrets: [],
        putWebhooks: [],
        putAutomations: [],
        deleteAutomations: [],
        maxWebhooksPerFactory: 5,
      };
      const applied = makeAuditEvent({ kind: 'definitions.applied', at: at(1) });
      expect(await store.definitions.write({ ...write, audit: applied })).toEqual({ applied: true });
      const stale = makeAuditEvent({ kind: 'definitions.applied', at: at(2) });
      expect(await store.definitions.write({ ...write, audit: stale })).toEqual({ applied: false, reason: 'stale' });
      expect(await events(store)).toEqual([applied]);
    });
  });
}
