import { recordAuditEvent } from '../audit/event.js';
import type { Principal } from '../auth/principal.js';
import { conflict } from '../errors.js';
import { type AgentRunEvents, emitSafely } from '../events.js';
import type { DeliveryRuns } from '../ingress/delivery-runs.js';
import { resendIdentity } from '../ingress/identity.js';
import { detachedRunItem } from '../run/record.js';
import { newOrderedId } from '../util/ids.js';
import { requireManage } from './access.js';
import { type ControlContext, nowIso } from './control-context.js';
import { acceptedPayload, payloadJson, requireDelivery } from './deliveries.js';
import { deliveryView } from './delivery-views.js';

/** What a resend needs beyond the control context: the ingress's decider of runs, and the events to tell. */
export interface ResendDeps {
  deliveryRuns: DeliveryRuns;
  events: AgentRunEvents | undefined;
  onError: (error: unknown) => void;
}

/**
 * `POST …/deliveries/{deliveryId}/resend` (docs/management-api.md, "Resending a delivery"): the
 * payload an accepted delivery kept, evaluated again against the webhook's automations as they are
 * now, as if it had just arrived: a new log entry (`Accepted`, its identity `resend:<original>:<id>`,
 * shown as `resent_from`), a run for every enabled automation that wants it, and an audit event
 * naming who asked. It is no delivery from the sender: it skips the sender's checks (auth, rate,
 * duplicate), and a webhook that is disabled or deleted takes no resend (409), as it takes no delivery.
 */
export async function resendDelivery(
  ctx: ControlContext,
  deps: ResendDeps,
  p: Principal,
  factoryUid: string,
  webhookUid: string,
  deliveryId: string,
) {
  requireManage(p);
  const original = await requireDelivery(ctx, p, factoryUid, webhookUid, deliveryId);
  const payload = acceptedPayload(original);
  const webhook = await ctx.store.webhooks.get(p.team_uid, factoryUid, webhookUid);
  if (!webhook || webhook.deletedAt !== null) throw conflict(`webhook ${webhookUid} is deleted: its deliveries cannot be resent`);
  if (!webhook.enabled) throw conflict(`webhook ${webhookUid} is disabled: enable it to resend its deliveries`);
  const id = newOrderedId();
  const delivery = {
    id,
    teamUid: webhook.teamUid,
    factoryUid: webhook.factoryUid,
    webhookUid: webhook.uid,
    identity: resendIdentity(original.id, id),
    size: payload.byteLength,
    receivedAt: nowIso(ctx),
    status: 'Accepted' as const,
    payload,
  };
  const automations = await ctx.store.automations.listForWebhook(webhook.uid);
  const runs = await deps.deliveryRuns({ webhook, automations, delivery, value: payloadJson(payload) });
  const outcome = await ctx.store.deliveries.accept({ delivery, runs });
  // The identity is new, and no admission was asked: only a store fault answers otherwise.
  if (!outcome.accepted) throw new Error(`the resend of delivery ${original.id} was not accepted`);
  if (deps.events && deps.events.listenerCount('run.created') > 0) {
    for (const { run } of runs) emitSafely(deps.events, deps.onError, 'run.created', { run: detachedRunItem(run), team_uid: run.teamUid });
  }
  const runIds = runs.map(({ run }) => run.id);
  // After the write (the delivery store takes no audit event): a failure here is reported, and the
  // resend stands, its log entry naming what it repeats.
  try {
    await recordAuditEvent(
      ctx.store,
      p,
      'delivery.resent',
      { type: 'delivery', id, factoryUid },
      { webhook_uid: webhook.uid, resent_from: original.id, runs: runIds.length },
      ctx.clock.now(),
    );
  } catch (error) {
    deps.onError(error);
  }
  return { delivery: deliveryView({ ...delivery, payload: null, runIds }), run_ids: runIds };
}
