import type { AutomationRecord, WebhookTrigger } from '../control/records.js';
import { compileFilter } from '../filter/index.js';
import { jsonEqual } from '../filter/json-equal.js';
import type { JsonValue, PayloadMatcher } from '../filter/types.js';

/** One webhook trigger, ready to test: the webhooks it selects as a set, its filter compiled. */
interface CompiledTrigger {
  webhookIds: ReadonlySet<string>;
  /** `undefined`: no payload filter, every delivery to a selected webhook matches. */
  matches: PayloadMatcher | undefined;
}

interface CacheEntry {
  /** The triggers this entry was compiled from, to tell whether a record still has them. */
  source: WebhookTrigger[];
  compiled: CompiledTrigger[];
}

/** Cached automations at most; past it the cache starts over (a few thousand compiled filters is little memory). */
const MAX_ENTRIES = 10_000;

/**
 * Whether an automation wants a delivery, with each automation's triggers compiled once and
 * reused for every delivery after. An entry is reused while the record's triggers are the very
 * array it was compiled from (a store that hands out stable snapshots, like the memory store) or
 * equal to it as JSON (a store that reads fresh rows); a timestamp is not trusted as a version,
 * since two edits can share one. `compile` is the filter compiler (a test counts its calls).
 */
export function createAutomationMatcher(
  compile: (filter: Readonly<Record<string, unknown>>) => PayloadMatcher = compileFilter,
): (automation: AutomationRecord, webhookUid: string, payload: unknown) => boolean {
  const cache = new Map<string, CacheEntry>();

  const compiledOf = (automation: AutomationRecord): CompiledTrigger[] => {
    const entry = cache.get(automation.id);
    if (entry !== undefined) {
      if (entry.source === automation.triggers) return entry.compiled;
      if (jsonEqual(entry.source as unknown as JsonValue, automation.triggers)) {
        entry.source = automation.triggers;
        return entry.compiled;
      }
    }
    const compiled = automation.triggers.map((t) => ({
      webhookIds: new Set(t.filter.webhook_ids),
      matches: t.filter.payload === undefined ? undefined : compile(t.filter.payload),
    }));
    if (cache.size >= MAX_ENTRIES) cache.clear();
    cache.set(automation.id, { source: automation.triggers, compiled });
    return compiled;
  };

  return (automation, webhookUid, payload) => {
    for (const trigger of compiledOf(automation)) {
      if (trigger.webhookIds.has(webhookUid) && (trigger.matches === undefined || trigger.matches(payload))) return true;
    }
    return false;
  };
}
