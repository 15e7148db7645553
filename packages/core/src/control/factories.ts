import type { Principal } from '../auth/principal.js';
import { conflict } from '../errors.js';
import { parseOrThrow } from '../models/validate.js';
import { newId } from '../util/ids.js';
import { requireFactory, requireManage } from './access.js';
import { type ControlContext, nowIso } from './control-context.js';
import type { FactoryRecord } from './records.js';
import { CreateFactorySchema } from './schemas.js';
import { factoryView } from './views.js';

/**
 * A foreman identity belongs to one factory of a team (docs/management-api.md, "Factories"): the
 * store refuses a second atomically, and the refusal is a conflict the caller can act on (choose
 * another identity).
 */
export async function createFactory(ctx: ControlContext, p: Principal, input: unknown) {
  requireManage(p);
  const body = parseOrThrow(CreateFactorySchema, input, 'factory');
  const now = nowIso(ctx);
  const record: FactoryRecord = {
    uid: newId(),
    teamUid: p.team_uid,
    name: body.name,
    foremanAgentIdentityUid: body.foreman_agent_identity_uid ?? null,
    createdAt: now,
    updatedAt: now,
  };
  const created = await ctx.store.factories.create(record);
  if (!created.created) throw conflict(`another factory of this team already has foreman ${record.foremanAgentIdentityUid}`);
  return factoryView(record);
}

export async function listFactories(ctx: ControlContext, p: Principal) {
  return { factories: (await ctx.store.factories.list(p.team_uid)).map(factoryView) };
}

export async function getFactory(ctx: ControlContext, p: Principal, factoryUid: string) {
  const factory = await requireFactory(ctx, p, factoryUid);
  const source = await ctx.store.factorySources.get(p.team_uid, factoryUid);
  return { ...factoryView(factory), has_source: source !== undefined };
}
