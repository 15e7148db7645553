import { type AgentRunEvents, emitSafely } from '../../events.js';
import { strictUtf8 } from '../../http/body.js';
import { detachedRunItem } from '../../run/record.js';
import type { DeliveryEvaluation, PendingDelivery, WebhookSelection } from '../../store/ingress.js';
import type { Store } from '../../store/store.js';
import { nextTurn } from '../../util/next-turn.js';
import type { DeliveryRuns } from '../delivery-runs.js';
import type { ParsedPayloads } from './parsed-payloads.js';

/**
 * Deliveries decided between two turns of the event loop. Deciding one costs about 90 µs on the
 * bench's workload (bench/README.md, "ingress and ingress-core: the ingress in memory"): a full
 * batch of 100 in one stretch would hold the ingress's requests for about 9 ms, the tail of its p99.
 */
const DECIDED_PER_TURN = 16;

/** What evaluating a batch needs; the evaluator's loop (evaluator.ts) supplies it. */
export interface EvaluateDeps {
  store: Store;
  deliveryRuns: DeliveryRuns;
  events: AgentRunEvents;
  onError: (error: unknown) => void;
  /** Told, for each delivery this process evaluated, the runs it started (telemetry/delivery-span.ts). */
  onEvaluated?: ((deliveryId: string, runIds: readonly string[]) => void) | undefined;
  /** Payloads this process's ingress parsed already (parsed-payloads.ts); the rest are parsed here. */
  parsed?: ParsedPayloads | undefined;
}

/**
 * Evaluate claimed deliveries (docs/webhooks.md, "When runs start"): the webhooks and their
 * automations are read in one step per batch, as they are now, and each delivery's runs decided by the
 * one decider the resend shares (delivery-runs.ts); then every delivery's runs are created, and
 * the deliveries marked evaluated, in one store step. A webhook disabled or deleted since the
 * accept starts nothing, as it would take no delivery now. Returns how many this call evaluated
 * (another claimer whose lease had run out may have got to some first: theirs stand).
 */
export async function evaluateBatch(deps: EvaluateDeps, claimed: readonly PendingDelivery[]): Promise<number> {
  const { store, deliveryRuns } = deps;
  // Every webhook of the batch and its automations, in one read.
  const found = await store.deliveries.selections([...new Set(claimed.map((d) => d.webhookUid))]);
  const selections = new Map<string, WebhookSelection>(found.map((s) => [s.webhook.uid, s]));

  const evaluations: DeliveryEvaluation[] = [];
  for (const [i, delivery] of claimed.entries()) {
    if (i > 0 && i % DECIDED_PER_TURN === 0) await nextTurn();
    const handed = deps.parsed?.take(delivery.id);
    const selection = selections.get(delivery.webhookUid);
    const webhook = selection?.webhook;
    if (!selection || !webhook || webhook.deletedAt !== null || !webhook.enabled) {
      evaluations.push({ deliveryId: delivery.id, runs: [] });
      continue;
    }
    let value: unknown;
    try {
      value = handed ? handed.value : JSON.parse(strictUtf8.decode(delivery.payload));
    } catch (error) {
      // The accept parsed these very bytes; a payload that no longer parses starts nothing, said once.
      deps.onError(error);
      evaluations.push({ deliveryId: delivery.id, runs: [] });
      continue;
    }
    const runs = await deliveryRuns({ webhook, automations: selection.automations, delivery, value });
    evaluations.push({ deliveryId: delivery.id, runs });
  }

  // The events' items are taken before the runs are handed over: a store may keep the very records
  // (DeliveryStore.completeEvaluations), and a worker may claim one before this resumes.
  const tell = deps.events.listenerCount('run.created') > 0;
  const items = tell
    ? evaluations.map(({ runs }) => runs.map(({ run }) => ({ run: detachedRunItem(run), team_uid: run.teamUid })))
    : undefined;
  const evaluated = await store.deliveries.completeEvaluations(evaluations);
  if (evaluated.length === 0) return 0;
  const mine = new Set(evaluated);
  for (const [i, { deliveryId, runs }] of evaluations.entries()) {
    if (!mine.has(deliveryId)) continue;
    for (const created of items?.[i] ?? []) emitSafely(deps.events, deps.onError, 'run.created', created);
    deps.onEvaluated?.(
      deliveryId,
      runs.map(({ run }) => run.id),
    );
  }
  return evaluated.length;
}
