import type { Principal } from '../auth/principal.js';
import { notFound } from '../errors.js';
import { explainFilter } from '../filter/index.js';
import { parseOrThrow } from '../models/validate.js';
import { requireAutomation } from './access.js';
import type { ControlContext } from './control-context.js';
import { acceptedPayload, findDelivery, payloadJson } from './deliveries.js';
import { TestFilterSchema } from './schemas.js';

/**
 * Would this automation start a run for this delivery? Both checks, and the first failing path
 * (docs/management-api.md, `test-filter`). The delivery is given, or a stored one of the factory.
 */
export async function testFilter(ctx: ControlContext, p: Principal, factoryUid: string, id: string, input: unknown) {
  const automation = await requireAutomation(ctx, p, factoryUid, id);
  let body: { webhook_uid: string; payload: unknown };
  const parsed = parseOrThrow(TestFilterSchema, input, 'test');
  if ('delivery_id' in parsed) {
    // A stored delivery of any webhook of this factory; only accepted ones keep their payload.
    const found = await findDelivery(ctx, p, factoryUid, parsed.delivery_id);
    if (!found) throw notFound(`delivery ${parsed.delivery_id} not found in factory ${factoryUid}`);
    body = { webhook_uid: found.webhookUid, payload: payloadJson(acceptedPayload(found)) };
  } else {
    body = parsed;
  }
  const selecting = automation.triggers.filter((t) => t.filter.webhook_ids.includes(body.webhook_uid));
  // A selected webhook that was deleted or disabled receives nothing, so nothing fires
  // (docs/management-api.md, "Automations").
  const target = selecting.length > 0 ? await ctx.store.webhooks.get(p.team_uid, factoryUid, body.webhook_uid) : undefined;
  const live = target !== undefined && target.deletedAt === null && target.enabled;
  const webhookCheck = {
    passed: selecting.length > 0 && live,
    detail:
      selecting.length === 0
        ? `the automation does not select webhook ${body.webhook_uid} (it selects ${[...new Set(automation.triggers.flatMap((t) => t.filter.webhook_ids))].join(', ') || 'no webhook'})`
        : target === undefined || target.deletedAt !== null
          ? `the automation selects webhook ${body.webhook_uid}, but that webhook was deleted: it receives nothing`
          : !target.enabled
            ? `the automation selects webhook ${body.webhook_uid}, but that webhook is disabled: it answers 404 and starts nothing`
            : `the automation selects webhook ${body.webhook_uid}`,
  };
  // With several triggers on this webhook, any one matching is enough; report the first failure otherwise.
  const candidates = selecting.length > 0 ? selecting : automation.triggers;
  let payloadCheck = { passed: false, detail: 'the automation has no webhook trigger' };
  for (const trigger of candidates) {
    const outcome = trigger.filter.payload === undefined ? { matched: true as const } : explainFilter(trigger.filter.payload, body.payload);
    payloadCheck = outcome.matched
      ? {
          passed: true,
          detail: trigger.filter.payload === undefined ? 'no payload filter: every delivery matches' : 'the payload matches the filter',
        }
      : { passed: false, detail: `${outcome.path}: ${outcome.reason}` };
    if (outcome.matched) break;
  }
  return {
    result: webhookCheck.passed && payloadCheck.passed && automation.enabled ? 'Would trigger' : 'Would not trigger',
    webhook_check: webhookCheck,
    payload_check: payloadCheck,
    ...(automation.enabled ? {} : { note: 'the automation is disabled' }),
  };
}
