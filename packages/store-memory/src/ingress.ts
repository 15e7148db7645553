import { EVENT_PAYLOAD_FILE, type Notification } from '@agentrun/core';
import type {
  AutomationRecord,
  CreateRunInput,
  DeliveryRecord,
  DeliveryStore,
  PendingDelivery,
  RateAdmission,
  RateLimitStore,
  RateRefusal,
} from '@agentrun/core/store';
import { retryAfterMs } from '@agentrun/core/store';
import type { WebhookSnapshot } from './control-plane.js';

const newestFirst = (a: DeliveryRecord, b: DeliveryRecord) =>
  a.receivedAt !== b.receivedAt ? (a.receivedAt < b.receivedAt ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;

/**
 * One key's admitted event times (ms), oldest first, in a ring: `size` of them from `head`. The
 * ring holds at most the largest limit admitted under, so a window never outgrows its limit.
 */
interface EventWindow {
  times: number[];
  head: number;
  size: number;
}

/**
 * `Date.parse`, remembering its last answer: a busy ingress asks about the same instant (one
 * delivery's `receivedAt`, util/clock.ts `isoTime`) three times in a row.
 */
let lastIso = '';
let lastMs = Number.NaN;
const msOf = (iso: string): number => {
  if (iso !== lastIso) {
    lastMs = Date.parse(iso);
    lastIso = iso;
  }
  return lastMs;
};

/** A copy of a delivery entry: the record is flat but for its payload bytes and its lists. */
const copyDelivery = (d: DeliveryRecord, payload: Uint8Array | null = d.payload && new Uint8Array(d.payload)): DeliveryRecord => {
  const copy: DeliveryRecord = { ...d, payload };
  if (d.request) copy.request = { ...d.request, headers: d.request.headers.map(([name, value]) => [name, value] as const) };
  if (d.runIds) copy.runIds = [...d.runIds];
  return copy;
};

/** An entry as a store keeps one it was given: no request (only an accepted delivery keeps it), no runs. */
const bareEntry = ({ request: _request, runIds: _runIds, ...entry }: DeliveryRecord): DeliveryRecord => entry;

/**
 * The delivery log and rate-limit windows in memory; each operation is synchronous, so atomic.
 * `createRun` stores a run of an accepted delivery; `copyBytes` copies attachment data, once per
 * distinct source array within one delivery (the runs of a delivery all attach its payload).
 * `publish` signals an accepted delivery awaiting evaluation (`delivery.accepted`) in process.
 */
export function createMemoryIngress(
  createRun: (input: CreateRunInput, copyBytes: (bytes: Uint8Array) => Uint8Array) => void,
  adoptRun: (input: CreateRunInput) => void,
  webhookSnapshot: (uid: string) => WebhookSnapshot | undefined,
  publish: (notification: Notification) => void,
): {
  deliveries: DeliveryStore;
  rateLimits: RateLimitStore;
  /** Every stored entry, for the audit log's reads (audit.ts); not part of the Store. */
  deliveryLog(): Iterable<DeliveryRecord>;
  /** What the stats read of the log (stats.ts); not part of the Store. */
  deliveryStats: DeliveryStatsView;
} {
  const log = new Map<string, DeliveryRecord>();
  /**
   * webhook uid → identity → the accepted delivery's id. Two levels rather than one key joined per
   * delivery: the strings are the ones the log entry holds already, so nothing more is kept per
   * delivery than the entry itself.
   */
  const accepted = new Map<string, Map<string, string>>();
  /**
   * Accepted deliveries not yet evaluated → when their lease ends (ms; the accept time until first
   * claimed). In acceptance order, so a claim takes the oldest first.
   */
  const pending = new Map<string, number>();
  /** key → the event times in its window; a key with none is dropped. */
  const windows = new Map<string, EventWindow>();
  const refusals = createRefusalCounts();

  /** The key's window with every event at or before `now - windowMs` dropped (oldest go first). */
  const inWindow = (key: string, windowMs: number, now: number): EventWindow | undefined => {
    const w = windows.get(key);
    if (w === undefined) return undefined;
    const cutoff = now - windowMs;
    const { times } = w;
    while (w.size > 0 && (times[w.head] as number) <= cutoff) {
      w.head = w.head + 1 === times.length ? 0 : w.head + 1;
      w.size--;
    }
    if (w.size === 0) {
      windows.delete(key);
      return undefined;
    }
    return w;
  };
  const retryAfter = (w: EventWindow | undefined, windowMs: number, now: number) =>
    retryAfterMs(w === undefined ? undefined : (w.times[w.head] as number), windowMs, now);

  /** Add `t` to the window of `key` (which has fewer than `limit` events), keeping times in order. */
  const record = (key: string, w: EventWindow | undefined, t: number, limit: number) => {
    if (w === undefined) {
      windows.set(key, { times: [t], head: 0, size: 1 });
      return;
    }
    let { times } = w;
    if (w.size === times.length) {
      // Full ring: unroll it into one twice the size, up to the limit (or just past the ring, when
      // the limit has shrunk since). Doubling, since a limit may be large and mostly unused.
      const grown: number[] = new Array(Math.max(Math.min(limit, 2 * w.size), w.size + 1));
      for (let i = 0; i < w.size; i++) grown[i] = times[(w.head + i) % times.length] as number;
      w.times = times = grown;
      w.head = 0;
    }
    // Usually `t` is the newest; a clock that stepped back inserts it in order instead.
    let at = (w.head + w.size) % times.length;
    for (let n = w.size; n > 0; n--) {
      const prev = at === 0 ? times.length - 1 : at - 1;
      if ((times[prev] as number) <= t) break;
      times[at] = times[prev] as number;
      at = prev;
    }
    times[at] = t;
    w.size++;
  };

  const peek = (key: string, windowMs: number, now: string) => {
    const t = msOf(now);
    const w = inWindow(key, windowMs, t);
    return { count: w?.size ?? 0, retryAfterMs: retryAfter(w, windowMs, t) };
  };
  /** Count the event, or say when a slot frees; `undefined` when admitted. */
  const refusal = ({ key, limit, windowMs, now }: RateAdmission): RateRefusal | undefined => {
    const t = msOf(now);
    const w = inWindow(key, windowMs, t);
    if ((w?.size ?? 0) >= limit) return { rateLimited: true, retryAfterMs: retryAfter(w, windowMs, t) };
    record(key, w, t, limit);
    return undefined;
  };

  /** A swept accepted delivery's identity, free again. */
  const forget = (d: DeliveryRecord) => {
    const ofWebhook = accepted.get(d.webhookUid);
    ofWebhook?.delete(d.identity as string);
    if (ofWebhook?.size === 0) accepted.delete(d.webhookUid);
  };

  return {
    deliveryLog: () => log.values(),
    deliveryStats: {
      entries: () => log.values(),
      refusals: () => refusals.values(),
    },
    deliveries: {
      async context({ webhookUid, authBudgetKey, windowMs, now }) {
        const snapshot = webhookSnapshot(webhookUid);
        return snapshot && { webhook: snapshot.webhook, secret: snapshot.secret, authFailures: peek(authBudgetKey, windowMs, now) };
      },
      async accept({ delivery, runs, admit }) {
        const refused = admit && refusal(admit);
        if (refused) {
          refusals.add(delivery);
          return { accepted: false, ...refused };
        }
        let ofWebhook = accepted.get(delivery.webhookUid);
        const original = ofWebhook?.get(delivery.identity as string);
        if (original !== undefined) {
          log.set(delivery.id, { ...bareEntry(delivery), status: 'Duplicate', payload: null });
          return { accepted: false, duplicateOf: original };
        }
        // Stored bytes are never written to and leave only as copies, so the log entry and every
        // attachment of the same bytes share one copy of them.
        let stored: Uint8Array | null = delivery.payload && new Uint8Array(delivery.payload);
        if (runs) {
          const copyBytes = sharedCopies();
          for (const run of runs) createRun(run, copyBytes);
          stored = delivery.payload && copyBytes(delivery.payload);
        }
        // A resend's runs are its evaluation, done; an ingress's wait for it.
        const { runIds: _given, ...kept } = delivery;
        log.set(delivery.id, copyDelivery(runs ? { ...kept, runIds: runs.map(({ run }) => run.id) } : kept, stored));
        if (ofWebhook === undefined) {
          ofWebhook = new Map();
          accepted.set(delivery.webhookUid, ofWebhook);
        }
        ofWebhook.set(delivery.identity as string, delivery.id);
        if (!runs) {
          pending.set(delivery.id, msOf(delivery.receivedAt));
          publish({ type: 'delivery.accepted', deliveryId: delivery.id });
        }
        return { accepted: true };
      },
      async claimEvaluations({ limit, leaseMs, now }) {
        const t = msOf(now);
        const claimed: PendingDelivery[] = [];
        for (const [id, dueAt] of pending) {
          if (claimed.length >= limit) break;
          if (dueAt > t) continue;
          const d = log.get(id);
          if (d?.payload == null) {
            pending.delete(id);
            continue;
          }
          pending.set(id, t + leaseMs);
          // The stored bytes themselves, not a copy: a claimed payload is read-only by contract
          // (`PendingDelivery`), and the evaluation attaches these very bytes to the runs.
          claimed.push({ ...d } as PendingDelivery);
        }
        return claimed;
      },
      async completeEvaluations(evaluations) {
        const done: string[] = [];
        for (const { deliveryId, runs } of evaluations) {
          // Evaluated already (or swept): its runs exist, or it is gone; none are made again.
          if (!pending.delete(deliveryId)) continue;
          const entry = log.get(deliveryId);
          if (entry) entry.runIds = runs.map(({ run }) => run.id);
          // Each run's `event-payload.json` is the stored payload itself: kept once, whatever the
          // number of runs, and alive with them after retention drops the log entry.
          const stored = log.get(deliveryId)?.payload ?? undefined;
          const copyBytes = sharedCopies(stored);
          for (const run of runs) {
            const input = stored ? withStoredPayload(run, stored) : run;
            // Handed over (DeliveryStore.completeEvaluations): kept as given when every attachment
            // is the stored payload, which is never written to; anything else is copied.
            if (stored && input.attachments.every((a) => a.data === stored)) adoptRun(input);
            else createRun(input, copyBytes);
          }
          done.push(deliveryId);
        }
        return done;
      },
      async selections(webhookUids) {
        return webhookUids.flatMap((uid) => {
          const snapshot = webhookSnapshot(uid);
          return snapshot ? [{ webhook: snapshot.webhook, automations: snapshot.automations }] : [];
        });
      },
      async log(entry, admit) {
        const refused = admit && refusal(admit);
        if (refused) {
          refusals.add(entry);
          return { logged: false, ...refused };
        }
        log.set(entry.id, copyDelivery(bareEntry(entry)));
        return { logged: true };
      },
      async list(teamUid, webhookUid, page) {
        const after = page.after;
        return [...log.values()]
          .filter((d) => d.teamUid === teamUid && d.webhookUid === webhookUid)
          .sort(newestFirst)
          .filter((d) => !after || d.receivedAt < after.receivedAt || (d.receivedAt === after.receivedAt && d.id < after.id))
          .slice(0, page.limit)
          .map((d) => copyDelivery(d));
      },
      async get(teamUid, webhookUid, id) {
        const d = log.get(id);
        return d && d.teamUid === teamUid && d.webhookUid === webhookUid ? copyDelivery(d) : undefined;
      },
      async find(teamUid, id) {
        const d = log.get(id);
        return d && d.teamUid === teamUid ? copyDelivery(d) : undefined;
      },
      async sweep(olderThan, keepNewest) {
        const byWebhook = new Map<string, DeliveryRecord[]>();
        for (const d of log.values()) byWebhook.set(d.webhookUid, [...(byWebhook.get(d.webhookUid) ?? []), d]);
        let removed = 0;
        for (const entries of byWebhook.values()) {
          for (const d of entries.sort(newestFirst).slice(keepNewest)) {
            // One awaiting evaluation waits for a later sweep (as on PostgreSQL).
            if (d.receivedAt >= olderThan || pending.has(d.id)) continue;
            log.delete(d.id);
            if (d.status === 'Accepted') forget(d);
            removed++;
          }
        }
        return removed;
      },
    },
    rateLimits: {
      async peek({ key, windowMs, now }) {
        return peek(key, windowMs, now);
      },
      async admit(input) {
        const refused = refusal(input);
        return refused ? { allowed: false, retryAfterMs: refused.retryAfterMs } : { allowed: true };
      },
    },
  };
}

/**
 * One copy per distinct source array: a delivery's runs all attach the same payload bytes.
 * `stored`: bytes the store holds already (never written to), shared rather than copied.
 */
function sharedCopies(stored?: Uint8Array): (bytes: Uint8Array) => Uint8Array {
  // Made on the first copy: an evaluated delivery's runs attach only the stored bytes.
  let copies: Map<Uint8Array, Uint8Array> | undefined;
  return (bytes) => {
    if (bytes === stored) return bytes;
    copies ??= new Map();
    let c = copies.get(bytes);
    if (c === undefined) {
      c = new Uint8Array(bytes);
      copies.set(bytes, c);
    }
    return c;
  };
}

/** A run of an evaluated delivery whose `event-payload.json` is the delivery's stored payload. */
const withStoredPayload = (input: CreateRunInput, stored: Uint8Array): CreateRunInput =>
  // Usually so already: a claim hands out the stored bytes, and the evaluation attaches them.
  input.attachments.every((a) => a.fileName !== EVENT_PAYLOAD_FILE || a.data === stored)
    ? input
    : { ...input, attachments: input.attachments.map((a) => (a.fileName === EVENT_PAYLOAD_FILE ? { ...a, data: stored } : a)) };

/** Enabled automations selecting a webhook. */
export const selectsWebhook = (a: AutomationRecord, webhookUid: string) =>
  a.enabled && a.triggers.some((t) => t.provider === 'webhook' && t.filter.webhook_ids.includes(webhookUid));

/** The stored log as the stats read it (stats.ts): the entries themselves, never changed by the reader. */
export interface DeliveryStatsView {
  entries(): Iterable<DeliveryRecord>;
  /** Refusals by a webhook's rate limit, per webhook and minute (the log keeps none of them). */
  refusals(): Iterable<RefusalCount>;
}

interface RefusalCount {
  teamUid: string;
  factoryUid: string;
  webhookUid: string;
  /** The minute's start, ms since the epoch. */
  minuteMs: number;
  n: number;
}

/** The longest stats range (7 days) and a minute more: refusals older than this are dropped. */
const REFUSALS_KEPT_MS = 7 * 86_400_000 + 60_000;

/**
 * Rate-limit refusals counted per webhook and minute: every stats step is whole minutes, so a
 * minute's count is exact in any of its buckets; memory stays bounded by webhooks × minutes kept.
 */
function createRefusalCounts() {
  const counts = new Map<string, RefusalCount>();
  let prunedAt = 0;
  return {
    add(d: DeliveryRecord) {
      const at = Date.parse(d.receivedAt);
      const minuteMs = at - (((at % 60_000) + 60_000) % 60_000);
      const key = `${d.webhookUid}\u0000${minuteMs}`;
      const c = counts.get(key);
      if (c) c.n++;
      else counts.set(key, { teamUid: d.teamUid, factoryUid: d.factoryUid, webhookUid: d.webhookUid, minuteMs, n: 1 });
      if (at - prunedAt > 60_000) {
        prunedAt = at;
        for (const [k, v] of counts) if (v.minuteMs < at - REFUSALS_KEPT_MS) counts.delete(k);
      }
    },
    values: () => counts.values(),
  };
}
