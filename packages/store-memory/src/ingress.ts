import type { AutomationRecord, CreateRunInput, DeliveryRecord, DeliveryStore, RateLimitStore } from '@agentrun/core';

const clone = <T>(value: T): T => structuredClone(value);
const newestFirst = (a: DeliveryRecord, b: DeliveryRecord) =>
  a.receivedAt !== b.receivedAt ? (a.receivedAt < b.receivedAt ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;

/** The delivery log and rate-limit windows in memory; each operation is synchronous, so atomic. */
export function createMemoryIngress(createRun: (input: CreateRunInput) => void): { deliveries: DeliveryStore; rateLimits: RateLimitStore } {
  const log = new Map<string, DeliveryRecord>();
  /** webhook uid + identity → the accepted delivery's id. */
  const accepted = new Map<string, string>();
  /** key → event times (ms) in its window, oldest first; never more than the limit. */
  const windows = new Map<string, number[]>();

  const inWindow = (key: string, windowMs: number, now: number) => {
    const events = (windows.get(key) ?? []).filter((t) => t > now - windowMs);
    if (events.length === 0) windows.delete(key);
    else windows.set(key, events);
    return events;
  };
  const retryAfter = (events: number[], windowMs: number, now: number) =>
    events[0] === undefined ? 0 : Math.max(0, events[0] + windowMs - now);

  return {
    deliveries: {
      async accept({ delivery, runs }) {
        const key = `${delivery.webhookUid}\u0000${delivery.identity}`;
        const original = accepted.get(key);
        if (original !== undefined) {
          log.set(delivery.id, clone({ ...delivery, status: 'Duplicate', payload: null }));
          return { accepted: false, duplicateOf: original };
        }
        for (const run of runs) createRun(run);
        log.set(delivery.id, clone(delivery));
        accepted.set(key, delivery.id);
        return { accepted: true };
      },
      async log(entry) {
        log.set(entry.id, clone(entry));
      },
      async list(teamUid, webhookUid, page) {
        const after = page.after;
        return [...log.values()]
          .filter((d) => d.teamUid === teamUid && d.webhookUid === webhookUid)
          .sort(newestFirst)
          .filter((d) => !after || d.receivedAt < after.receivedAt || (d.receivedAt === after.receivedAt && d.id < after.id))
          .slice(0, page.limit)
          .map(clone);
      },
      async get(teamUid, webhookUid, id) {
        const d = log.get(id);
        return d && d.teamUid === teamUid && d.webhookUid === webhookUid ? clone(d) : undefined;
      },
      async sweep(olderThan, keepNewest) {
        const byWebhook = new Map<string, DeliveryRecord[]>();
        for (const d of log.values()) byWebhook.set(d.webhookUid, [...(byWebhook.get(d.webhookUid) ?? []), d]);
        let removed = 0;
        for (const entries of byWebhook.values()) {
          for (const d of entries.sort(newestFirst).slice(keepNewest)) {
            if (d.receivedAt >= olderThan) continue;
            log.delete(d.id);
            if (d.status === 'Accepted') accepted.delete(`${d.webhookUid}\u0000${d.identity}`);
            removed++;
          }
        }
        return removed;
      },
    },
    rateLimits: {
      async peek({ key, windowMs, now }) {
        const t = Date.parse(now);
        const events = inWindow(key, windowMs, t);
        return { count: events.length, retryAfterMs: retryAfter(events, windowMs, t) };
      },
      async admit({ key, limit, windowMs, now }) {
        const t = Date.parse(now);
        const events = inWindow(key, windowMs, t);
        if (events.length >= limit) return { allowed: false, retryAfterMs: retryAfter(events, windowMs, t) };
        windows.set(key, [...events, t]);
        return { allowed: true };
      },
    },
  };
}

/** Enabled automations selecting a webhook. */
export const selectsWebhook = (a: AutomationRecord, webhookUid: string) =>
  a.enabled && a.triggers.some((t) => t.provider === 'webhook' && t.filter.webhook_ids.includes(webhookUid));
