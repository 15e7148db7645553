import type { Principal } from '../auth/principal.js';
import { invalidRequest, notFound } from '../errors.js';
import { parseOrThrow } from '../models/validate.js';
import { RepositoryError } from '../repositories/reader.js';
import type { RepositoryRecord } from '../repositories/records.js';
import { ListAgentsQuerySchema } from '../repositories/schemas.js';
import type { AgentSkillListing, AgentVariant } from '../repositories/wire.js';
import { compareCodePoints } from '../run/list-query.js';
import type { SkillCatalog, SkillEntry } from './skill-catalog.js';

/**
 * `GET /agent` (docs/run-api.md, "List agents"): the skills a team can run, one agent per skill
 * name with a variant per SKILL.md of that name, from the catalog's cache of each repository's
 * default-branch commit (`refresh` reads every branch anew). Malformed files appear only with
 * `include_malformed_skills`, named by their folder, with `error`. A repository that cannot be
 * read is left out of a full listing, and is a 400 when named by `repo`.
 */
export async function listAgents(catalog: SkillCatalog, p: Principal, input: Record<string, unknown>) {
  const query = parseOrThrow(ListAgentsQuerySchema, input, 'query');
  let repos: RepositoryRecord[];
  if (query.repo !== undefined) {
    const one = await catalog.store.repositories.get(p.team_uid, query.repo);
    if (!one) throw notFound(`repository ${query.repo} not found`);
    repos = [one];
  } else repos = await catalog.store.repositories.list(p.team_uid);
  if (!catalog.enabled && query.repo === undefined) return { agents: [] };

  const entries: SkillEntry[] = [];
  for (const repo of repos) {
    try {
      entries.push(...(await catalog.entries(repo, { refresh: query.refresh })));
    } catch (error) {
      if (!(error instanceof RepositoryError) || query.repo !== undefined) throw wrap(error, repo.name);
    }
  }

  const byName = new Map<string, AgentVariant[]>();
  for (const entry of entries) {
    if (!entry.skill && !query.include_malformed_skills) continue;
    const name = entry.skill?.name ?? folderOf(entry.path);
    const variant = variantOf(entry);
    if (query.sort_by === 'last_run') variant.last_run_timestamp = await lastRun(catalog, p.team_uid, entry, name);
    byName.set(name, [...(byName.get(name) ?? []), variant]);
  }
  const agents: AgentSkillListing[] = [...byName].map(([name, variants]) => ({ name, variants }));
  agents.sort(query.sort_by === 'last_run' ? byLastRun : (a, b) => compareCodePoints(a.name, b.name));
  return { agents };
}

function variantOf(entry: SkillEntry): AgentVariant {
  const [owner, name] = entry.repository.split('/') as [string, string];
  const variant: AgentVariant = {
    id: `${entry.repository}:${entry.path}`,
    base_prompt: entry.skill?.body ?? '',
    description: entry.skill?.description ?? '',
    environments: [],
    source: { owner, name, skill_path: entry.path },
  };
  if (entry.error !== undefined) variant.error = entry.error;
  return variant;
}

/** The newest run started with this skill, by either of its specs (path form or name form). */
async function lastRun(catalog: SkillCatalog, teamUid: string, entry: SkillEntry, name: string): Promise<string | null> {
  let newest: string | null = null;
  for (const skillSpec of [`${entry.repository}:${entry.path}`, `${entry.repository}:${name}`]) {
    const [run] = await catalog.store.runs.list({ teamUid, filter: { skillSpec }, sortBy: 'created_at', order: 'desc', limit: 1 });
    if (run && (newest === null || run.createdAt > newest)) newest = run.createdAt;
  }
  return newest;
}

/** Most recently run first; never-run agents last, by name. */
function byLastRun(a: AgentSkillListing, b: AgentSkillListing): number {
  const last = (x: AgentSkillListing) =>
    x.variants.reduce<string>((m, v) => (v.last_run_timestamp && v.last_run_timestamp > m ? v.last_run_timestamp : m), '');
  const [la, lb] = [last(a), last(b)];
  if (la !== lb) return la > lb ? -1 : 1;
  return compareCodePoints(a.name, b.name);
}

const folderOf = (path: string) => path.split('/').at(-2) ?? path;

/** A named repository that cannot be read is a 400 saying why. */
function wrap(error: unknown, repo: string): unknown {
  if (error instanceof RepositoryError) return invalidRequest(`repository ${repo} cannot be read (${error.code}): ${error.message}`);
  return error;
}
