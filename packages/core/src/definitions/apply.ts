import { auditEvent } from '../audit/event.js';
import type { Principal } from '../auth/principal.js';
import { requireFactory, requireManage } from '../control/access.js';
import { appliedCopy, openTeamSecret } from '../control/applied-secret.js';
import { type ControlContext, ingressOrigin, nowIso } from '../control/control-context.js';
import { teamNames } from '../environments/check.js';
import { environmentFilesUrlProblems } from '../environments/url-check.js';
import { conflict } from '../errors.js';
import { invalidWithErrors, parseAllOrThrow } from '../models/validate.js';
import { planSchedules } from '../schedules/plan-files.js';
import { planApply } from './plan.js';
import { ApplyDefinitionsSchema } from './schemas.js';
import { skillErrors } from './skills.js';
import type { ApplyResult } from './wire.js';
import { writePlanned } from './write.js';

/** How an apply is made: from the API (the default), or from the factory's source (sources/sync.ts). */
export interface ApplyOptions {
  /** Applied from the factory's source repository: allowed on a factory with a source, and renews pending secrets (plan.ts). */
  fromSource?: boolean;
}

/**
 * `POST /factories/{factoryUid}/apply` (docs/definitions.md): make the factory what its definition
 * files say, as one operation. Every problem of every file is answered at once, each at its path;
 * nothing is written unless all files apply. The write is one store transaction guarded by the
 * factory's definition version, so two concurrent applies never half-apply: the later one plans
 * again on what the first wrote.
 */
export async function applyDefinitions(
  ctx: ControlContext,
  p: Principal,
  factoryUid: string,
  input: unknown,
  requestOrigin: string,
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  requireManage(p);
  const body = parseAllOrThrow(ApplyDefinitionsSchema, input, 'definitions');
  await requireFactory(ctx, p, factoryUid);
  const teamUid = p.team_uid;
  // A factory with a source is what its branch says: an apply from elsewhere would be undone by the next commit.
  if (!options.fromSource && !body.dry_run && (await ctx.store.factorySources.get(teamUid, factoryUid)))
    throw conflict(
      `factory ${factoryUid} is applied from its source repository: push the change to its branch, or clear the source first (docs/repositories.md)`,
    );

  return writePlanned(ctx, factoryUid, async () => {
    // One snapshot: the version guard covers what the plan read only if all of it is of that version.
    const { set, webhooks, automations } = await ctx.store.definitions.snapshot(teamUid, factoryUid);
    const secrets = new Map<string, NonNullable<Awaited<ReturnType<typeof openTeamSecret>>>>();
    for (const name of new Set(body.webhooks.map((w) => w.secret_name))) {
      const opened = await openTeamSecret(ctx, teamUid, name);
      if (opened) secrets.set(name, opened);
    }
    const environments = await ctx.store.environments.list(teamUid);
    const teamNamesNow = await teamNames(ctx.store, teamUid);
    const plan = planApply({
      teamUid,
      factoryUid,
      body,
      set,
      webhooks,
      automations,
      secrets,
      environments,
      teamNames: teamNamesNow,
      now: nowIso(ctx),
      origin: ingressOrigin(ctx, requestOrigin),
      maxWebhooksPerFactory: ctx.maxWebhooksPerFactory,
      renewSecrets: options.fromSource === true,
    });
    // Schedule files (docs/schedules.md, "Definition files"), against the environments the apply leaves.
    const environmentIds = new Set([...environments.map((e) => e.id), ...plan.putEnvironments.map((e) => e.id)]);
    for (const id of plan.deleteEnvironments) environmentIds.delete(id);
    const schedules = planSchedules({
      teamUid,
      factoryUid,
      files: body.schedules,
      schedules: await ctx.store.schedules.list(teamUid),
      environmentIds,
      owner: { type: p.type, uid: p.uid, team_uid: teamUid, ...(p.display_name !== undefined ? { display_name: p.display_name } : {}) },
      prune: body.prune,
      now: ctx.clock.now(),
    });
    // Skills resolve as the API's automation saves resolve them (definitions/skills.ts).
    const errors = [
      ...plan.errors,
      ...(await environmentFilesUrlProblems(ctx.skills, body.environments)),
      ...schedules.errors,
      ...(await skillErrors(ctx.skills, teamUid, body.automations)),
      ...(await skillErrors(ctx.skills, teamUid, body.schedules, 'schedules')),
    ];
    if (errors.length > 0) throw invalidWithErrors(errors, 'definitions');

    const version = set?.version ?? 0;
    const answer: ApplyResult = {
      applied: false,
      dry_run: body.dry_run,
      version,
      webhooks: plan.webhooks,
      automations: plan.automations,
      environments: plan.environments,
      schedules: schedules.planned,
    };
    const changes = plan.changes || schedules.put.length > 0 || schedules.delete.length > 0;
    if (body.dry_run || !changes) return { answer };

    const putSecrets = await Promise.all(
      plan.putWebhooks.flatMap(({ record, copyOf }) =>
        copyOf ? [appliedCopy(ctx, teamUid, copyOf.secretName, record.uid, copyOf.value)] : [],
      ),
    );
    return {
      answer: { ...answer, applied: true, version: version + 1 },
      write: {
        set: { ...plan.set, version: version + 1 },
        expectedVersion: version,
        putSecrets,
        deleteSecrets: plan.deleteSecrets,
        putWebhooks: plan.putWebhooks.map((w) => w.record),
        putAutomations: plan.putAutomations,
        deleteAutomations: plan.deleteAutomations,
        putEnvironments: plan.putEnvironments,
        deleteEnvironments: plan.deleteEnvironments,
        putSchedules: schedules.put,
        deleteSchedules: schedules.delete,
        maxWebhooksPerFactory: ctx.maxWebhooksPerFactory,
        audit: auditEvent(p, 'definitions.applied', { type: 'definitions', id: factoryUid, factoryUid }, nowIso(ctx), {
          version: version + 1,
          webhooks: plan.putWebhooks.length,
          automations: plan.putAutomations.length,
          deleted_automations: plan.deleteAutomations.length,
          environments: plan.putEnvironments.length,
          deleted_environments: plan.deleteEnvironments.length,
          schedules: schedules.put.length,
          deleted_schedules: schedules.delete.length,
        }),
      },
    };
  });
}
