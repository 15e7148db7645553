import { auditEvent } from '../audit/event.js';
import type { Principal } from '../auth/principal.js';
import { requireManage } from '../control/access.js';
import { type ControlContext, nowIso } from '../control/control-context.js';
import { notFound } from '../errors.js';
import { parseOrThrow } from '../models/validate.js';
import { newId } from '../util/ids.js';
import type { AgentIdentityRecord } from './records.js';
import { CreateAgentIdentitySchema, ListAgentIdentitiesQuerySchema, UpdateAgentIdentitySchema } from './schemas.js';
import { type AgentIdentityView, agentIdentityView } from './view.js';

// The agent identities' API (docs/run-api.md, "Agent identities"): team-wide, read with
// `read_runs`, changed with `manage_factory`.

/** An optional text as stored: `""` clears it. */
const stored = (value: string): string | null => (value === '' ? null : value);

export async function createAgentIdentity(ctx: ControlContext, p: Principal, input: unknown): Promise<AgentIdentityView> {
  requireManage(p);
  const body = parseOrThrow(CreateAgentIdentitySchema, input, 'agent identity');
  const now = nowIso(ctx);
  const record: AgentIdentityRecord = {
    uid: newId(),
    teamUid: p.team_uid,
    name: body.name,
    description: body.description == null ? null : stored(body.description),
    baseModel: body.base_model == null ? null : stored(body.base_model),
    prompt: body.prompt == null ? null : stored(body.prompt),
    createdAt: now,
    updatedAt: now,
  };
  await ctx.store.agentIdentities.put(record, audited(p, 'agent_identity.written', record, now));
  return agentIdentityView(record);
}

/** `PUT /agent/identities/{uid}`: omitted or `null` leaves a field as it is; `""` clears an optional one. */
export async function updateAgentIdentity(ctx: ControlContext, p: Principal, uid: string, input: unknown): Promise<AgentIdentityView> {
  requireManage(p);
  const body = parseOrThrow(UpdateAgentIdentitySchema, input, 'agent identity');
  const current = await requireAgentIdentity(ctx, p, uid);
  const now = nowIso(ctx);
  const record: AgentIdentityRecord = {
    ...current,
    name: body.name ?? current.name,
    description: body.description == null ? current.description : stored(body.description),
    baseModel: body.base_model == null ? current.baseModel : stored(body.base_model),
    prompt: body.prompt == null ? current.prompt : stored(body.prompt),
    updatedAt: now,
  };
  await ctx.store.agentIdentities.put(record, audited(p, 'agent_identity.written', record, now));
  return agentIdentityView(record);
}

/** The team's identities, oldest first; none with `factory_uid` (no identity is linked to a factory here). */
export async function listAgentIdentities(ctx: ControlContext, p: Principal, query: unknown) {
  if (parseOrThrow(ListAgentIdentitiesQuerySchema, query, 'query').factory_uid !== undefined) return { agents: [] };
  return { agents: (await ctx.store.agentIdentities.list(p.team_uid)).map(agentIdentityView) };
}

export async function deleteAgentIdentity(ctx: ControlContext, p: Principal, uid: string): Promise<void> {
  requireManage(p);
  const current = await requireAgentIdentity(ctx, p, uid);
  const audit = audited(p, 'agent_identity.deleted', current, nowIso(ctx));
  if (!(await ctx.store.agentIdentities.delete(p.team_uid, uid, audit))) throw notFound(`agent identity ${uid} not found`);
}

const audited = (p: Principal, kind: 'agent_identity.written' | 'agent_identity.deleted', a: AgentIdentityRecord, now: string) =>
  auditEvent(p, kind, { type: 'agent_identity', id: a.uid, factoryUid: null }, now, { name: a.name });

async function requireAgentIdentity(ctx: ControlContext, p: Principal, uid: string): Promise<AgentIdentityRecord> {
  const found = await ctx.store.agentIdentities.get(p.team_uid, uid);
  if (!found) throw notFound(`agent identity ${uid} not found`);
  return found;
}
