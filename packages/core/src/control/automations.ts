import type * as v from 'valibot';
import { auditEvent } from '../audit/event.js';
import type { Principal } from '../auth/principal.js';
import { requireEnvironmentId } from '../environments/check.js';
import { invalidRequest, notFound } from '../errors.js';
import { parseFilter } from '../filter/index.js';
import { requireHarness } from '../harness/harness-check.js';
import { parseOrThrow } from '../models/validate.js';
import { resolveSkill } from '../skills/resolve-skill.js';
import { newId } from '../util/ids.js';
import { requireAutomation, requireFactory, requireManage } from './access.js';
import { type ControlContext, nowIso } from './control-context.js';
import type { AutomationRecord, WebhookTrigger } from './records.js';
import { CreateAutomationSchema, PatchAutomationSchema } from './schemas.js';
import { automationView } from './views.js';

export async function createAutomation(ctx: ControlContext, p: Principal, factoryUid: string, input: unknown) {
  requireManage(p);
  const body = parseOrThrow(CreateAutomationSchema, input, 'automation');
  await requireFactory(ctx, p, factoryUid);
  await requireEnvironmentId(ctx.store, p.team_uid, body.config?.environment_id, 'automation: config.environment_id');
  if (body.config) await requireHarness(ctx.store, p.team_uid, body.config, undefined, 'automation');
  const now = nowIso(ctx);
  const record: AutomationRecord = {
    id: newId(),
    teamUid: p.team_uid,
    factoryUid,
    name: body.name,
    prompt: body.prompt,
    enabled: body.enabled ?? true,
    config: await checkSkill(ctx, p, body.config ?? null),
    triggers: await checkTriggers(ctx, p, factoryUid, body.triggers),
    createdAt: now,
    updatedAt: now,
  };
  await ctx.store.automations.create(record, auditEvent(p, 'automation.created', automationTarget(record), now, { name: record.name }));
  return automationView(record);
}

export async function listAutomations(ctx: ControlContext, p: Principal, factoryUid: string) {
  await requireFactory(ctx, p, factoryUid);
  const files = await definitionFiles(ctx, p.team_uid, factoryUid);
  return { automations: (await ctx.store.automations.list(p.team_uid, factoryUid)).map((a) => automationView(a, files.get(a.id))) };
}

export async function getAutomation(ctx: ControlContext, p: Principal, factoryUid: string, id: string) {
  const automation = await requireAutomation(ctx, p, factoryUid, id);
  return automationView(automation, (await definitionFiles(ctx, p.team_uid, factoryUid)).get(automation.id));
}

/**
 * The file each automation of the factory's last apply came from, by automation ID
 * (docs/definitions.md): `automations/<name>.yaml`, the name as that apply read it.
 */
async function definitionFiles(ctx: ControlContext, teamUid: string, factoryUid: string): Promise<Map<string, string>> {
  const set = await ctx.store.definitions.get(teamUid, factoryUid);
  return new Map((set?.automations ?? []).map((a) => [a.id, `automations/${a.name}.yaml`]));
}

export async function patchAutomation(ctx: ControlContext, p: Principal, factoryUid: string, id: string, input: unknown) {
  requireManage(p);
  const patch = parseOrThrow(PatchAutomationSchema, input, 'automation change');
  const current = await requireAutomation(ctx, p, factoryUid, id);
  await requireEnvironmentId(ctx.store, p.team_uid, patch.config?.environment_id, 'automation change: config.environment_id');
  if (patch.config) await requireHarness(ctx.store, p.team_uid, patch.config, undefined, 'automation change');
  const next: AutomationRecord = {
    ...current,
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.prompt !== undefined ? { prompt: patch.prompt } : {}),
    ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
    ...(patch.config !== undefined ? { config: await checkSkill(ctx, p, patch.config) } : {}),
    ...(patch.triggers !== undefined ? { triggers: await checkTriggers(ctx, p, factoryUid, patch.triggers) } : {}),
    updatedAt: nowIso(ctx),
  };
  const audit = auditEvent(p, 'automation.updated', automationTarget(next), next.updatedAt, { name: next.name, enabled: next.enabled });
  if (!(await ctx.store.automations.replace(next, audit))) throw notFound(`automation ${id} not found`);
  return automationView(next, (await definitionFiles(ctx, p.team_uid, factoryUid)).get(next.id));
}

export async function deleteAutomation(ctx: ControlContext, p: Principal, factoryUid: string, id: string): Promise<void> {
  requireManage(p);
  await requireFactory(ctx, p, factoryUid);
  const audit = auditEvent(p, 'automation.deleted', { type: 'automation', id, factoryUid }, nowIso(ctx));
  if (!(await ctx.store.automations.delete(p.team_uid, factoryUid, id, audit))) throw notFound(`automation ${id} not found`);
}

/** An automation's skill must resolve now, as a run request's must (skills/resolve-skill.ts, the one decider). */
async function checkSkill<C extends { skill_spec?: string | undefined } | null>(ctx: ControlContext, p: Principal, config: C): Promise<C> {
  if (config?.skill_spec !== undefined) await resolveSkill(ctx.skills, p.team_uid, config.skill_spec, 'config.skill_spec');
  return config;
}

const automationTarget = (a: AutomationRecord) => ({ type: 'automation', id: a.id, factoryUid: a.factoryUid });

/** Each trigger's webhooks must be live webhooks of this factory; each payload filter must be valid. */
async function checkTriggers(
  ctx: ControlContext,
  p: Principal,
  factoryUid: string,
  triggers: v.InferOutput<typeof CreateAutomationSchema>['triggers'],
): Promise<WebhookTrigger[]> {
  const live = new Set((await ctx.store.webhooks.list(p.team_uid, factoryUid)).map((w) => w.uid));
  return triggers.map((t, i) => {
    t.filter.webhook_ids.forEach((uid, j) => {
      if (!live.has(uid))
        throw invalidRequest(`invalid automation: triggers.${i}.filter.webhook_ids.${j}: no webhook ${uid} in factory ${factoryUid}`);
    });
    const filter: WebhookTrigger['filter'] = { webhook_ids: [...new Set(t.filter.webhook_ids)] };
    if (t.filter.payload !== undefined && t.filter.payload !== null) {
      filter.payload = parseFilter(t.filter.payload, `triggers.${i}.filter.payload`) as Record<string, unknown>;
    }
    return { provider: 'webhook', event: 'received', filter };
  });
}
