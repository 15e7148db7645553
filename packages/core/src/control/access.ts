import type { Principal } from '../auth/principal.js';
import { AgentRunError, notFound } from '../errors.js';
import { allows } from '../keys/scopes.js';
import type { ControlContext } from './control-context.js';
import type { AutomationRecord, FactoryRecord, WebhookRecord } from './records.js';

/**
 * Who may do what, and the lookups the operations start with (docs/management-api.md): every
 * lookup is scoped to the principal's team and the factory named in the path; a change also needs
 * `manage_factory`.
 */

/** Every change needs `manage_factory`. */
export function requireManage(p: Principal): void {
  if (!allows(p, 'manage_factory')) {
    throw new AgentRunError('forbidden', 'this change needs the manage_factory permission');
  }
}

export async function requireFactory(ctx: ControlContext, p: Principal, factoryUid: string): Promise<FactoryRecord> {
  const factory = await ctx.store.factories.get(p.team_uid, factoryUid);
  if (!factory) throw notFound(`factory ${factoryUid} not found`);
  return factory;
}

/** A live webhook of the factory: a deleted one is not found. */
export async function requireWebhook(ctx: ControlContext, p: Principal, factoryUid: string, uid: string): Promise<WebhookRecord> {
  await requireFactory(ctx, p, factoryUid);
  const webhook = await ctx.store.webhooks.get(p.team_uid, factoryUid, uid);
  if (!webhook || webhook.deletedAt !== null) throw notFound(`webhook ${uid} not found in factory ${factoryUid}`);
  return webhook;
}

export async function requireAutomation(ctx: ControlContext, p: Principal, factoryUid: string, id: string): Promise<AutomationRecord> {
  await requireFactory(ctx, p, factoryUid);
  const automation = await ctx.store.automations.get(p.team_uid, factoryUid, id);
  if (!automation) throw notFound(`automation ${id} not found in factory ${factoryUid}`);
  return automation;
}
