import { auditEvent } from '../audit/event.js';
import type { Principal } from '../auth/principal.js';
import { type ControlContext, nowIso } from '../control/control-context.js';
import { applyDefinitions } from '../definitions/apply.js';
import { type DefinitionText, type LoadedDefinitions, readDefinitions } from '../definitions/directory.js';
import { locateProblems } from '../definitions/locate.js';
import { isAgentRunError } from '../errors.js';
import { RepositoryError } from '../repositories/reader.js';
import { newId } from '../util/ids.js';
import { readCommitDefinitions } from './read-commit.js';
import type { FactorySourceRecord, SourceApplyError, SourceApplyRecord, SourceTrigger } from './records.js';

/** What one sync of a factory's source did (docs/repositories.md, "Factories from a repository"). */
export interface SyncOutcome {
  /** The branch head it found. */
  commit: string;
  /**
   * `applied`, `failed`: this sync applied the commit; `already`: it has an apply; `superseded`: a
   * sync that fetched later applied (or applies) what it found, so this older view is dropped;
   * `busy`: another commit is being applied.
   */
  outcome: 'applied' | 'failed' | 'already' | 'superseded' | 'busy';
  /** The apply of the commit: this sync's, or the one it found. */
  apply: SourceApplyRecord | undefined;
}

/** Who a source's applies are made by, in the audit log: the source itself, with the power to apply. */
const sourcePrincipal = (s: FactorySourceRecord): Principal => ({
  type: 'service_account',
  uid: `source:${s.factoryUid}`,
  display_name: `${s.repository}@${s.branch}`,
  team_uid: s.teamUid,
  permissions: ['manage_factory'],
});

/**
 * Sync a factory with its source: fetch the branch, and apply its head commit unless that commit
 * has an apply already, through the same plan and write as `agentrun apply --prune`. The claim
 * in the store makes each commit apply once across processes; a failed commit writes nothing and
 * keeps its errors at file and line. Throws when the branch cannot be read (a `RepositoryError`,
 * or a 400 for an unregistered repository or a missing reader): nothing is recorded then.
 */
export async function syncSource(
  ctx: ControlContext,
  source: FactorySourceRecord,
  trigger: SourceTrigger,
  staleMs: number,
): Promise<SyncOutcome> {
  const { store, skills } = ctx;
  const repo = await store.repositories.get(source.teamUid, source.repository);
  if (!repo) throw new RepositoryError('not_found', `repository ${source.repository} is not registered for the team any more`);
  const reader = skills.requireReader(repo.name);
  const access = await skills.access(repo);
  // Taken before the fetch: an apply that started later saw the branch at least as new as this one does.
  const startedAt = nowIso(ctx);
  const commit = await reader.resolve(access, source.branch, { refresh: true });

  const now = ctx.clock.now();
  const claimed: SourceApplyRecord = {
    id: newId(),
    teamUid: source.teamUid,
    factoryUid: source.factoryUid,
    commit,
    triggeredBy: trigger,
    status: 'applying',
    errors: [],
    version: null,
    startedAt,
    finishedAt: null,
  };
  const claim = await store.factorySources.claimApply(claimed, new Date(now - staleMs).toISOString());
  if (claim !== 'claimed') {
    const found = claim === 'done' ? await findApply(ctx, source, commit) : undefined;
    return { commit, outcome: claim === 'done' ? 'already' : claim, apply: found };
  }

  const principal = sourcePrincipal(source);
  let result: { version: number } | { errors: SourceApplyError[] };
  try {
    const files = await readCommitDefinitions(reader, access, commit, source.directory);
    result = 'errors' in files ? files : await applyFiles(ctx, source, principal, files.texts);
  } catch (error) {
    // Unexpected (the store failed, say): the claim stays `applying` and goes stale, and the commit is tried again then.
    if (!(error instanceof RepositoryError)) throw error;
    result = { errors: [{ path: source.directory || '.', line: 0, message: `cannot read the commit (${error.code}): ${error.message}` }] };
  }
  const finished: SourceApplyRecord = {
    ...claimed,
    ...('version' in result ? { status: 'applied', version: result.version } : { status: 'failed', errors: result.errors }),
    finishedAt: nowIso(ctx),
  };
  const kind = finished.status === 'applied' ? 'source.applied' : 'source.failed';
  const audit = auditEvent(
    principal,
    kind,
    { type: 'source', id: source.factoryUid, factoryUid: source.factoryUid },
    finished.finishedAt as string,
    {
      commit,
      triggered_by: trigger,
      version: finished.version,
      errors: finished.errors.length,
    },
  );
  await store.factorySources.finishApply(finished, audit);
  return { commit, outcome: finished.status === 'applied' ? 'applied' : 'failed', apply: finished };
}

/** Apply a commit's definition files; their problems (of the files, or of the apply) at file and line. */
async function applyFiles(
  ctx: ControlContext,
  source: FactorySourceRecord,
  principal: Principal,
  texts: readonly DefinitionText[],
): Promise<{ version: number } | { errors: SourceApplyError[] }> {
  const prefix = source.directory === '' ? '' : `${source.directory}/`;
  const loaded: LoadedDefinitions = readDefinitions(texts, (path) => `${prefix}${path}`);
  if (loaded.problems.length > 0) return { errors: loaded.problems };
  if (loaded.factoryUid !== undefined && loaded.factoryUid !== source.factoryUid)
    return {
      errors: [
        { path: `${prefix}factory.yaml`, line: 1, message: `uid: names factory ${loaded.factoryUid}, not this one (${source.factoryUid})` },
      ],
    };
  const body = {
    webhooks: loaded.webhooks,
    automations: loaded.automations,
    environments: loaded.environments,
    schedules: loaded.schedules,
    prune: true,
  };
  try {
    const answer = await applyDefinitions(ctx, principal, source.factoryUid, body, ctx.baseUrl ?? '', { fromSource: true });
    return { version: answer.version };
  } catch (error) {
    // A store outage, or a factory that kept changing: tried again when the claim goes stale, not recorded as the commit's fault.
    if (!isAgentRunError(error) || error.retryable || error.code === 'unavailable' || error.code === 'internal_error') throw error;
    const problems = error.errors ?? [{ path: '', detail: error.detail }];
    return { errors: locateProblems(problems, loaded, source.directory || '.') };
  }
}

async function findApply(ctx: ControlContext, source: FactorySourceRecord, commit: string): Promise<SourceApplyRecord | undefined> {
  const applies = await ctx.store.factorySources.listApplies(source.teamUid, source.factoryUid, { limit: 100 });
  return applies.find((a) => a.commit === commit);
}
