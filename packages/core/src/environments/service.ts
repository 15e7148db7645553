import { auditEvent } from '../audit/event.js';
import type { Principal } from '../auth/principal.js';
import { requireManage } from '../control/access.js';
import { type ControlContext, nowIso } from '../control/control-context.js';
import { conflict, notFound } from '../errors.js';
import { invalidWithErrors, parseOrThrow } from '../models/validate.js';
import { newId } from '../util/ids.js';
import { environmentProblems, teamNames } from './check.js';
import type { EnvironmentRecord } from './records.js';
import { containerOf, EnvironmentBodySchema, repositoriesOf } from './schemas.js';
import { repositoryUrlProblems } from './url-check.js';
import { type EnvironmentView, environmentView } from './view.js';

// The environments' management API (docs/repositories.md, "The API"): team-wide, read with
// `read_factory`, changed with `manage_factory`. One a factory's files define is changed by its file.

export async function createEnvironment(ctx: ControlContext, p: Principal, input: unknown): Promise<EnvironmentView> {
  return (await save(ctx, p, undefined, input)).view;
}

/** `PUT /environments/{id}`: replace it whole, keeping its id and `created_at`. */
export async function replaceEnvironment(ctx: ControlContext, p: Principal, id: string, input: unknown): Promise<EnvironmentView> {
  requireManage(p);
  await requireEnvironment(ctx, p, id);
  return (await save(ctx, p, id, input)).view;
}

export async function listEnvironments(ctx: ControlContext, p: Principal) {
  return { environments: (await ctx.store.environments.list(p.team_uid)).map(environmentView) };
}

export async function getEnvironment(ctx: ControlContext, p: Principal, id: string): Promise<EnvironmentView> {
  return environmentView(await requireEnvironment(ctx, p, id));
}

export async function deleteEnvironment(ctx: ControlContext, p: Principal, id: string): Promise<void> {
  requireManage(p);
  const current = await requireEnvironment(ctx, p, id);
  refuseFileDefined(current, 'delete its file and apply with --prune');
  const audit = auditEvent(p, 'environment.deleted', { type: 'environment', id, factoryUid: null }, nowIso(ctx), { name: current.name });
  if (!(await ctx.store.environments.delete(p.team_uid, id, audit))) throw notFound(`environment ${id} not found`);
}

async function save(ctx: ControlContext, p: Principal, id: string | undefined, input: unknown) {
  requireManage(p);
  const body = parseOrThrow(EnvironmentBodySchema, input, 'environment');
  const current = id === undefined ? undefined : await ctx.store.environments.get(p.team_uid, id);
  if (current) refuseFileDefined(current, 'change its file and apply');
  const repositories = repositoriesOf(body);
  const problems = [
    ...environmentProblems({ repositories, variables: body.variables }, await teamNames(ctx.store, p.team_uid), ''),
    ...(await repositoryUrlProblems(ctx.skills, repositories, '')),
  ];
  if (problems.length > 0) throw invalidWithErrors(problems, 'environment');
  const now = nowIso(ctx);
  const record: EnvironmentRecord = {
    id: id ?? newId(),
    teamUid: p.team_uid,
    factoryUid: null,
    name: body.name,
    repositories,
    setup: body.setup,
    variables: body.variables,
    setupTimeoutSeconds: body.setup_timeout_seconds,
    ...containerOf(body),
    createdAt: current?.createdAt ?? now,
    updatedAt: now,
  };
  const audit = auditEvent(p, 'environment.written', { type: 'environment', id: record.id, factoryUid: null }, now, { name: record.name });
  const put = await ctx.store.environments.put(record, audit);
  if (!put.ok) throw conflict(`the team already has an environment named ${body.name}`);
  return { created: put.created, view: environmentView(record) };
}

async function requireEnvironment(ctx: ControlContext, p: Principal, id: string): Promise<EnvironmentRecord> {
  const found = await ctx.store.environments.get(p.team_uid, id);
  if (!found) throw notFound(`environment ${id} not found`);
  return found;
}

function refuseFileDefined(e: EnvironmentRecord, advice: string): void {
  if (e.factoryUid !== null)
    throw conflict(
      `environment ${e.name} is defined by factory ${e.factoryUid}'s file environments/${e.name}.yaml: ${advice} (docs/definitions.md)`,
    );
}
