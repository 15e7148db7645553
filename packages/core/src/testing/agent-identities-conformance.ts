import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEventRecord } from '../audit/records.js';
import type { AgentIdentityRecord } from '../identities/records.js';
import type { Store } from '../store/store.js';

/**
 * The agent identities part of the Store port (docs/run-api.md, "Agent identities"): the same
 * answers on every store; a change commits its audit event with itself; a delete of nothing
 * stores no event; teams never see each other's identities.
 */
export interface AgentIdentitiesConformanceOptions {
  /** A fresh, empty store for each test. */
  create: () => Store | Promise<Store>;
  destroy?: (store: Store) => void | Promise<void>;
}

const identity = (over: Partial<AgentIdentityRecord> = {}): AgentIdentityRecord => ({
  uid: 'id-1',
  teamUid: 'team-1',
  name: 'Triage',
  description: null,
  baseModel: null,
  prompt: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...over,
});

const event = (kind: AuditEventRecord['kind'], targetId: string, id: string): AuditEventRecord => ({
  id,
  teamUid: 'team-1',
  at: '2026-01-02T00:00:00.000Z',
  kind,
  actorType: 'api_key',
  actorId: 'key-1',
  targetType: 'agent_identity',
  targetId,
  factoryUid: null,
  detail: { name: 'Triage' },
});

export function describeAgentIdentitiesConformance(name: string, options: AgentIdentitiesConformanceOptions): void {
  describe(`${name}: agent identities`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await options.create();
    });
    afterEach(async () => {
      await options.destroy?.(store);
    });
    const events = async () => (await store.audit.list('team-1', { limit: 100 })).map((e) => `${e.kind} ${e.targetId}`);

    it('puts, gets and lists oldest first (then by uid), per team', async () => {
      const b = identity({ uid: 'b', createdAt: '2026-01-01T00:00:00.000Z', description: 'd', baseModel: 'm', prompt: 'p' });
      const a = identity({ uid: 'a', createdAt: '2026-01-01T00:00:00.000Z' });
      const older = identity({ uid: 'z', createdAt: '2025-12-31T00:00:00.000Z' });
      const elsewhere = identity({ uid: 'a', teamUid: 'team-2', name: 'Other team' });
      for (const x of [b, a, older, elsewhere]) await store.agentIdentities.put(x);
      expect(await store.agentIdentities.list('team-1')).toEqual([older, a, b]);
      expect(await store.agentIdentities.list('team-2')).toEqual([elsewhere]);
      expect(await store.agentIdentities.get('team-1', 'b')).toEqual(b);
      expect(await store.agentIdentities.get('team-2', 'b')).toBeUndefined();
    });

    it('a put of a known uid replaces it, keeping created_at; its audit event is stored with it', async () => {
      await store.agentIdentities.put(identity(), event('agent_identity.written', 'id-1', 'e1'));
      const changed = identity({
        name: 'Renamed',
        prompt: 'p',
        createdAt: '2026-02-01T00:00:00.000Z',
        updatedAt: '2026-02-01T00:00:00.000Z',
      });
      await store.agentIdentities.put(changed, event('agent_identity.written', 'id-1', 'e2'));
      expect(await store.agentIdentities.get('team-1', 'id-1')).toEqual({ ...changed, createdAt: '2026-01-01T00:00:00.000Z' });
      expect(await events()).toEqual(['agent_identity.written id-1', 'agent_identity.written id-1']);
    });

    it('delete: true once with its event, then false with none; another team cannot delete it', async () => {
      await store.agentIdentities.put(identity());
      expect(await store.agentIdentities.delete('team-2', 'id-1')).toBe(false);
      expect(await store.agentIdentities.delete('team-1', 'id-1', event('agent_identity.deleted', 'id-1', 'e1'))).toBe(true);
      expect(await store.agentIdentities.delete('team-1', 'id-1', event('agent_identity.deleted', 'id-1', 'e2'))).toBe(false);
      expect(await store.agentIdentities.get('team-1', 'id-1')).toBeUndefined();
      expect(await events()).toEqual(['agent_identity.deleted id-1']);
    });
  });
}
