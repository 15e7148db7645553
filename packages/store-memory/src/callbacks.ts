import type {
  ArtifactRecord,
  AuditEventRecord,
  CallbackAttemptRecord,
  CallbackDeliveryRecord,
  CallbackDeliveryWithAttempts,
  CallbackEndpointRecord,
  CallbackStore,
  RunCallbackEvent,
  RunRecord,
} from '@agentrun/core/store';
import { endpointWants } from '@agentrun/core/store';
import { copy } from './copy.js';
import type { RunWrite } from './notifications.js';

interface StoredDelivery extends CallbackDeliveryRecord {
  claimedUntil: string | null;
  attemptLog: CallbackAttemptRecord[];
}

/**
 * Run-state callbacks in memory (docs/callbacks.md): endpoints, the outbox and its attempts.
 * `recordRunWrite` is called by the run store in the same synchronous step as each run write
 * (memory-store.ts), so a state change and its deliveries exist together or not at all.
 */
export function createMemoryCallbacks(append: (event: AuditEventRecord | undefined) => void): {
  callbacks: CallbackStore;
  recordRunWrite(write: RunWrite, run: RunRecord): void;
  /** Whether any endpoint exists: without one, no write makes a delivery (and need not be looked at). */
  hasEndpoints(): boolean;
  recordArtifact(artifact: ArtifactRecord, run: RunRecord): void;
  /** The stored endpoints and deliveries themselves, to read (never change) in a read's own step (stats.ts). */
  callbackLog(): { endpoints: Iterable<CallbackEndpointRecord>; deliveries: Iterable<CallbackDeliveryWithAttempts> };
} {
  const endpoints = new Map<string, CallbackEndpointRecord>();
  const deliveries = new Map<string, StoredDelivery>();
  let seq = 0;

  const ofTeam = (teamUid: string, id: string) => {
    const e = endpoints.get(id);
    return e?.teamUid === teamUid ? e : undefined;
  };
  const view = (d: StoredDelivery): CallbackDeliveryWithAttempts => {
    const { claimedUntil: _, ...rest } = d;
    return copy(rest);
  };

  const record = (event: RunCallbackEvent) => {
    for (const endpoint of endpoints.values()) {
      if (!endpointWants(endpoint, event)) continue;
      seq += 1;
      const id = `cbd_${crypto.randomUUID()}`;
      deliveries.set(id, {
        ...copy(event),
        id,
        seq,
        endpointId: endpoint.id,
        status: 'pending',
        attempts: 0,
        roundAttempts: 0,
        windowStartedAt: event.occurredAt,
        nextAttemptAt: event.occurredAt,
        updatedAt: event.occurredAt,
        claimedUntil: null,
        attemptLog: [],
      });
    }
  };

  const recordRunWrite = (write: RunWrite, run: RunRecord) => {
    if (write.before === write.after) return;
    record({
      eventType: write.before === undefined ? 'run.created' : 'run.state_changed',
      teamUid: run.teamUid,
      factoryUid: run.factoryUid,
      runId: run.id,
      fromState: write.before ?? null,
      toState: write.after,
      statusMessage: run.statusMessage,
      occurredAt: write.before === undefined ? run.createdAt : run.updatedAt,
      artifact: null,
    });
  };

  // Called by the artifact store in the step that appends the artifact (memory-store.ts).
  const recordArtifact = (artifact: ArtifactRecord, run: RunRecord) =>
    record({
      eventType: 'run.artifact_added',
      teamUid: run.teamUid,
      factoryUid: run.factoryUid,
      runId: run.id,
      fromState: null,
      toState: run.state,
      statusMessage: run.statusMessage,
      occurredAt: artifact.createdAt,
      artifact: { ...artifact.item, uid: artifact.uid },
    });

  const callbacks: CallbackStore = {
    async createEndpoint(record, maxPerTeam, audit) {
      if ([...endpoints.values()].filter((e) => e.teamUid === record.teamUid).length >= maxPerTeam)
        return { created: false, reason: 'limit' };
      endpoints.set(record.id, copy(record));
      append(audit);
      return { created: true };
    },
    async getEndpoint(teamUid, id) {
      const e = ofTeam(teamUid, id);
      return e ? copy(e) : undefined;
    },
    async listEndpoints(teamUid) {
      return [...endpoints.values()]
        .filter((e) => e.teamUid === teamUid)
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
        .map(copy);
    },
    async updateEndpoint(teamUid, id, patch, now, audit) {
      const e = ofTeam(teamUid, id);
      if (!e) return undefined;
      const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      Object.assign(e, copy(defined), { updatedAt: now });
      append(audit);
      return copy(e);
    },
    async deleteEndpoint(teamUid, id, audit) {
      if (!ofTeam(teamUid, id)) return false;
      endpoints.delete(id);
      for (const [key, d] of deliveries) if (d.endpointId === id) deliveries.delete(key);
      append(audit);
      return true;
    },
    async claimDue({ now, limit, claimUntil }) {
      const due = [...deliveries.values()]
        .filter(
          (d) =>
            d.status === 'pending' &&
            d.nextAttemptAt !== null &&
            d.nextAttemptAt <= now &&
            (d.claimedUntil === null || d.claimedUntil <= now) &&
            endpoints.get(d.endpointId)?.enabled === true,
        )
        .sort((a, b) => (a.nextAttemptAt ?? '').localeCompare(b.nextAttemptAt ?? '') || a.seq - b.seq)
        .slice(0, limit);
      return due.map((d) => {
        d.claimedUntil = claimUntil;
        const endpoint = endpoints.get(d.endpointId) as CallbackEndpointRecord;
        const { attemptLog: _, claimedUntil: __, ...delivery } = d;
        return { delivery: copy(delivery), url: endpoint.url, secretCiphertext: endpoint.secretCiphertext };
      });
    },
    async recordAttempt(input) {
      const d = deliveries.get(input.attempt.deliveryId);
      if (d?.status !== 'pending' || d.claimedUntil !== input.claimedUntil) return false;
      d.attemptLog.push(copy(input.attempt));
      d.attempts += 1;
      d.roundAttempts += 1;
      d.status = input.status;
      d.nextAttemptAt = input.nextAttemptAt;
      d.claimedUntil = null;
      d.updatedAt = input.now;
      const endpoint = endpoints.get(d.endpointId);
      if (endpoint) {
        endpoint.failingSince = input.attempt.ok ? null : (endpoint.failingSince ?? input.endpoint.failingSince);
        if (input.endpoint.disable && endpoint.enabled) {
          endpoint.enabled = false;
          endpoint.disabledReason = 'failing';
          endpoint.updatedAt = input.now;
        }
      }
      return true;
    },
    async listDeliveries(teamUid, endpointId, { before, limit }) {
      if (!ofTeam(teamUid, endpointId)) return [];
      return [...deliveries.values()]
        .filter((d) => d.endpointId === endpointId && (before === undefined || d.seq < before))
        .sort((a, b) => b.seq - a.seq)
        .slice(0, limit)
        .map(view);
    },
    async getDelivery(teamUid, endpointId, deliveryId) {
      const d = deliveries.get(deliveryId);
      return d && d.endpointId === endpointId && d.teamUid === teamUid ? view(d) : undefined;
    },
    async resend(teamUid, endpointId, deliveryId, now, audit) {
      const d = deliveries.get(deliveryId);
      if (!d || d.endpointId !== endpointId || d.teamUid !== teamUid) return 'absent';
      if (d.status === 'pending') return 'pending';
      Object.assign(d, {
        status: 'pending',
        roundAttempts: 0,
        windowStartedAt: now,
        nextAttemptAt: now,
        claimedUntil: null,
        updatedAt: now,
      });
      append(audit);
      return 'resent';
    },
    async scanEndpoints(afterId, limit) {
      return [...endpoints.values()]
        .filter((e) => afterId === undefined || e.id > afterId)
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .slice(0, limit)
        .map(copy);
    },
    async resealEndpoint(id, expected, ciphertext) {
      const e = endpoints.get(id);
      if (e?.secretCiphertext !== expected) return false;
      e.secretCiphertext = ciphertext;
      return true;
    },
    async sweep(before) {
      let removed = 0;
      for (const [key, d] of deliveries)
        if (d.status !== 'pending' && d.updatedAt < before) {
          deliveries.delete(key);
          removed++;
        }
      return removed;
    },
  };
  return {
    callbacks,
    recordRunWrite,
    hasEndpoints: () => endpoints.size > 0,
    recordArtifact,
    callbackLog: () => ({ endpoints: endpoints.values(), deliveries: deliveries.values() }),
  };
}
