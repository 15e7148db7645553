import { invalidRequest, isAgentRunError } from '../errors.js';
import type { AgentSkill } from '../models/run.js';
import { RepositoryError } from '../repositories/reader.js';
import { parseSkillSpec } from '../run/skill.js';
import type { SkillCatalog } from './skill-catalog.js';

/** A skill spec resolved: the run's `agent_skill` (pinned) and the base prompt it gives. */
export interface ResolvedSkill {
  skill: AgentSkill;
  basePrompt: string;
}

/**
 * The one decider of whether a skill spec resolves (docs/repositories.md, "Skills"), used by the
 * run API, by automation saves and by webhook-started runs alike. `<owner>/<repo>` must be a
 * repository the team registered; `<path>/SKILL.md` must be a well-formed SKILL.md at that path
 * of the default branch's current commit; `<skill-name>` must be the front-matter name of exactly
 * one well-formed SKILL.md there. Anything else is a 400 naming `field` and the spec.
 */
export async function resolveSkill(catalog: SkillCatalog, teamUid: string, spec: string, field: string): Promise<ResolvedSkill> {
  const parsed = parseSkillSpec(spec, field);
  const [repoName, target] = splitSpec(spec);
  const refuse = (why: string) => invalidRequest(`invalid ${field}: skill ${JSON.stringify(spec)} cannot be resolved: ${why}`);
  const repo = await catalog.store.repositories.get(teamUid, repoName);
  if (!repo) throw refuse(`no repository ${repoName} is registered for this team (POST /repositories)`);
  let entries: Awaited<ReturnType<SkillCatalog['entries']>>;
  try {
    entries = await catalog.entries(repo);
  } catch (error) {
    if (error instanceof RepositoryError) throw refuse(`repository ${repoName} (${error.code}): ${error.message}`);
    if (isAgentRunError(error) && error.code === 'invalid_request') throw refuse(error.detail);
    throw error;
  }
  const found =
    parsed.full_path !== undefined ? entries.filter((e) => e.path === parsed.full_path) : entries.filter((e) => e.skill?.name === target);
  if (found.length === 0) {
    throw refuse(
      parsed.full_path !== undefined
        ? `${repoName} has no ${parsed.full_path} at ${repo.defaultBranch}`
        : `no SKILL.md in ${repoName} at ${repo.defaultBranch} has the name ${target}`,
    );
  }
  if (found.length > 1)
    throw refuse(`several SKILL.md files are named ${target}: ${found.map((e) => e.path).join(', ')}; name one by its path`);
  const entry = found[0] as (typeof found)[number];
  if (!entry.skill) throw refuse(`${entry.path} is malformed: ${entry.error}`);
  return {
    skill: {
      spec,
      name: entry.skill.name,
      description: entry.skill.description,
      full_path: entry.path,
      repository: repoName,
      commit: entry.commit,
    },
    basePrompt: entry.skill.body,
  };
}

/** `<owner>/<repo>` and what follows the colon (the spec is already checked by parseSkillSpec). */
const splitSpec = (spec: string): [string, string] => {
  const colon = spec.indexOf(':');
  return [spec.slice(0, colon), spec.slice(colon + 1)];
};
