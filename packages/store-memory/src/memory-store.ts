import type { FollowupRecord, Store } from '@agentrun/core';
import {
  type ApiKeyRecord,
  type ApiKeyStore,
  type AttachmentRecord,
  type ClaimRunInput,
  type CreateRunInput,
  compareRuns,
  createNotificationHub,
  type IdempotencyRecord,
  type IdempotencyStore,
  type IdempotencyWrite,
  type Idempotent,
  isAfterPosition,
  LEASED_STATES,
  matchesRunFilter,
  nextUpdatedAt,
  type RenewLeaseInput,
  type RunListQuery,
  type RunRecord,
  type RunStore,
  type TransitionOutcome,
  type TransitionRunInput,
} from '@agentrun/core/store';
import { createMemoryControlPlane } from './control-plane.js';
import { copy as clone } from './copy.js';
import { createMemoryIngress } from './ingress.js';
import { runWriteNotifications } from './notifications.js';

export interface MemoryStoreOptions {
  /** Where an exception thrown by a notification listener goes. Default: one `console.error`. */
  onError?: (error: unknown) => void;
}

/**
 * A Store in process memory. Every operation runs to completion without awaiting in between, so
 * on JavaScript's single thread each one is atomic with respect to all others, which is what the
 * Store contract asks of a SQL transaction. Values are cloned on the way in and out, so callers
 * never alias what is stored.
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): Store {
  // In-process notifications, published by this store's own writes once they are done (each is
  // synchronous, so "done" is "committed"); the hub delivers them in a later microtask.
  const hub = createNotificationHub(options.onError);
  const published = (write: Parameters<typeof runWriteNotifications>[0]) => {
    for (const n of runWriteNotifications(write)) hub.publish(n);
  };
  const runs = new Map<string, RunRecord>();
  const followups = new Map<string, FollowupRecord[]>();
  /** A run's attachments, by run id (written once, with the run). */
  const attachments = new Map<string, AttachmentRecord[]>();
  const idempotency = new Map<string, IdempotencyRecord>();
  const apiKeys = new Map<string, ApiKeyRecord>();

  const idemKey = (scope: string, key: string) => `${scope}\u0000${key}`;

  const liveRecord = (scope: string, key: string, now: string) => {
    const record = idempotency.get(idemKey(scope, key));
    return record && record.expiresAt > now ? record : undefined;
  };

  /**
   * Run `perform` unless the key was used. When `perform` yields a value to respond with (a run
   * it wrote), the response is recorded in the same step; a write that did not apply records none.
   */
  function withIdempotency<R, T>(
    write: IdempotencyWrite<R> | undefined,
    perform: () => T,
    written: (result: T) => R | undefined,
  ): Idempotent<T> {
    if (write) {
      const existing = liveRecord(write.scope, write.key, write.now);
      if (existing) return { replayed: clone(existing) };
    }
    const result = perform();
    const subject = written(result);
    if (write && subject !== undefined) {
      const { status, body } = write.respond(subject);
      idempotency.set(idemKey(write.scope, write.key), {
        scope: write.scope,
        key: write.key,
        fingerprint: write.fingerprint,
        status,
        body: clone(body),
        createdAt: write.now,
        expiresAt: write.expiresAt,
      });
    }
    return { result };
  }

  const runStore: RunStore = {
    async create(input: CreateRunInput) {
      return withIdempotency(
        input.idempotency,
        () => {
          if (runs.has(input.run.id)) throw new Error(`run ${input.run.id} already exists`);
          runs.set(input.run.id, clone(input.run));
          if (input.attachments.length > 0) attachments.set(input.run.id, input.attachments.map(clone));
          published({ runId: input.run.id, before: undefined, after: input.run.state });
          return clone(input.run);
        },
        (run) => run,
      );
    },

    async get(runId, teamUid) {
      const run = runs.get(runId);
      return run && (teamUid === undefined || run.teamUid === teamUid) ? clone(run) : undefined;
    },

    async list(query: RunListQuery) {
      const out: RunRecord[] = [];
      for (const run of runs.values()) {
        if (run.teamUid !== query.teamUid) continue;
        if (query.asOf !== undefined && query.sortBy === 'updated_at' && run.updatedAt > query.asOf) continue;
        if (!isAfterPosition(run, query)) continue;
        if (matchesRunFilter(run, query.filter)) out.push(run);
      }
      return out.sort(compareRuns(query.sortBy, query.order)).slice(0, query.limit).map(clone);
    },

    async transition(input: TransitionRunInput) {
      return withIdempotency(
        input.idempotency,
        (): TransitionOutcome => {
          const run = runs.get(input.runId);
          if (!run || (input.teamUid !== undefined && run.teamUid !== input.teamUid)) return { applied: false, run: undefined };
          const { expect } = input;
          const leaseOk =
            (expect.workerId === undefined || run.lease?.workerId === expect.workerId) &&
            (expect.leaseExpiredBy === undefined || (run.lease !== null && run.lease.expiresAt <= expect.leaseExpiredBy));
          if (run.state !== expect.state || !leaseOk) return { applied: false, run: clone(run) };
          const before = run.state;
          const patch = clone(input.patch);
          Object.assign(run, definedOnly(patch));
          run.updatedAt = nextUpdatedAt(run.updatedAt, input.now);
          if (input.followup) {
            const list = followups.get(run.id) ?? [];
            list.push(clone(input.followup));
            followups.set(run.id, list);
          }
          published({ runId: run.id, before, after: run.state, followupId: input.followup?.id });
          return { applied: true, run: clone(run) };
        },
        (outcome) => (outcome.applied ? outcome.run : undefined),
      );
    },

    async claimNext(input: ClaimRunInput) {
      let next: RunRecord | undefined;
      for (const run of runs.values()) {
        if (run.state !== 'QUEUED') continue;
        if (!next || run.createdAt < next.createdAt || (run.createdAt === next.createdAt && run.id < next.id)) next = run;
      }
      if (!next) return undefined;
      next.state = 'CLAIMED';
      next.attempts += 1;
      next.lease = { workerId: input.workerId, expiresAt: input.leaseExpiresAt };
      next.updatedAt = nextUpdatedAt(next.updatedAt, input.now);
      published({ runId: next.id, before: 'QUEUED', after: 'CLAIMED' });
      return clone(next);
    },

    async renewLease(input: RenewLeaseInput) {
      const run = runs.get(input.runId);
      if (!run) return undefined;
      if (LEASED_STATES.has(run.state) && run.lease?.workerId === input.workerId) {
        run.lease = { workerId: input.workerId, expiresAt: input.leaseExpiresAt };
      }
      return clone(run);
    },

    async listExpiredLeases(now, limit) {
      return [...runs.values()]
        .filter((r) => LEASED_STATES.has(r.state) && r.lease !== null && r.lease.expiresAt <= now)
        .sort((a, b) => (a.lease?.expiresAt ?? '').localeCompare(b.lease?.expiresAt ?? '') || a.id.localeCompare(b.id))
        .slice(0, limit)
        .map(clone);
    },

    async listFollowups(runId) {
      return (followups.get(runId) ?? []).map(clone);
    },

    async getAttachment(teamUid, runId, fileName) {
      const run = runs.get(runId);
      if (!run || run.teamUid !== teamUid) return undefined;
      const a = attachments.get(runId)?.find((x) => x.fileName === fileName);
      return a ? clone(a) : undefined;
    },
  };

  const idempotencyStore: IdempotencyStore = {
    async get(scope, key, now) {
      const record = liveRecord(scope, key, now);
      return record && record.status !== 0 ? clone(record) : undefined;
    },
    async reserve(r) {
      const existing = liveRecord(r.scope, r.key, r.now);
      if (existing) return { reserved: false, existing: clone(existing) };
      idempotency.set(idemKey(r.scope, r.key), {
        scope: r.scope,
        key: r.key,
        fingerprint: r.fingerprint,
        status: 0,
        body: null,
        createdAt: r.now,
        expiresAt: r.expiresAt,
      });
      return { reserved: true };
    },
    async complete(scope, key, response) {
      const record = idempotency.get(idemKey(scope, key));
      if (record && record.status === 0) {
        idempotency.set(idemKey(scope, key), {
          ...record,
          status: response.status,
          body: clone(response.body),
          expiresAt: response.expiresAt,
        });
      }
    },
    async release(scope, key) {
      if (idempotency.get(idemKey(scope, key))?.status === 0) idempotency.delete(idemKey(scope, key));
    },
    async purgeExpired(now) {
      let removed = 0;
      for (const [k, record] of idempotency) {
        if (record.expiresAt <= now) {
          idempotency.delete(k);
          removed++;
        }
      }
      return removed;
    },
  };

  const apiKeyStore: ApiKeyStore = {
    async create(record) {
      if (apiKeys.has(record.hash)) throw new Error('an API key with this hash already exists');
      apiKeys.set(record.hash, clone(record));
    },
    async findByHash(hash) {
      const record = apiKeys.get(hash);
      return record ? clone(record) : undefined;
    },
  };

  // Runs of an accepted delivery are written in the same synchronous step as the delivery.
  // AttachmentRecord is flat but for its bytes, which the ingress copies (once per delivery).
  const { webhookSnapshot, ...controlPlane } = createMemoryControlPlane();
  const ingress = createMemoryIngress((input, copyBytes) => {
    if (runs.has(input.run.id)) throw new Error(`run ${input.run.id} already exists`);
    runs.set(input.run.id, clone(input.run));
    if (input.attachments.length > 0)
      attachments.set(
        input.run.id,
        input.attachments.map((a) => ({ ...a, data: copyBytes(a.data) })),
      );
    published({ runId: input.run.id, before: undefined, after: input.run.state });
  }, webhookSnapshot);
  return {
    runs: runStore,
    idempotency: idempotencyStore,
    apiKeys: apiKeyStore,
    ...controlPlane,
    ...ingress,
    notifications: { listen: (listener) => hub.listen(listener) },
    async close() {
      hub.clear();
    },
  };
}

/** A patch's given fields (`undefined` means "leave as is"; `null` clears). */
const definedOnly = <T extends object>(patch: T): Partial<T> =>
  Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
