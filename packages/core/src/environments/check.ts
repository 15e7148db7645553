import type { FieldError } from '../errors.js';
import { invalidRequest } from '../errors.js';
import type { Store } from '../store/store.js';
import type { EnvironmentRepository } from './records.js';
import { isRepositoryName } from './schemas.js';

/**
 * `environment_id` names an environment of the team (seed 2.2: it selects one), at run create and
 * at automation save alike (docs/run-api.md, `config.environment_id`): an unknown one is a 400
 * naming it and the field it came from.
 */
export async function requireEnvironmentId(store: Store, teamUid: string, id: string | undefined, field: string): Promise<void> {
  if (id === undefined) return;
  if (!(await store.environments.get(teamUid, id))) throw invalidRequest(`invalid ${field}: no environment ${id} in this team`);
}

/** What the team has that an environment names: its secrets and its registered repositories (by name). */
export interface TeamNames {
  secrets: ReadonlySet<string>;
  repositories: ReadonlySet<string>;
}

/**
 * What an environment's body must also be beyond its schema: two repositories never cloned into
 * one directory (or one inside the other), each `<owner>/<repo>` a repository the team registered,
 * and each variable's team secret there when it is saved (a repository or secret deleted later
 * fails the run that needs it: `environment_unavailable`). `at` prefixes each path (`''` in the
 * API, `environments.<i>.` in an apply).
 */
export function environmentProblems(
  body: { repositories: readonly EnvironmentRepository[]; variables: Readonly<Record<string, string>> },
  names: TeamNames,
  at: string,
): FieldError[] {
  const problems: FieldError[] = [];
  body.repositories.forEach((r, i) => {
    if (isRepositoryName(r.repository) && !names.repositories.has(r.repository))
      problems.push({
        path: `${at}repositories.${i}.repository`,
        detail: `no repository named ${r.repository} is registered for this team; register it first (POST /repositories) or give a clone URL`,
      });
  });
  const seen: [string, number][] = [];
  body.repositories.forEach((r, i) => {
    const first = seen.find(([d]) => d === r.directory || d.startsWith(`${r.directory}/`) || r.directory.startsWith(`${d}/`));
    if (first)
      problems.push({ path: `${at}repositories.${i}.directory`, detail: `${r.directory} overlaps repositories.${first[1]} (${first[0]})` });
    else seen.push([r.directory, i]);
  });
  for (const [variable, secret] of Object.entries(body.variables)) {
    if (!names.secrets.has(secret))
      problems.push({
        path: `${at}variables.${variable}`,
        detail: `no team secret named ${secret}; create it first (agentrun secret create ${secret} --team)`,
      });
  }
  return problems;
}

/** The names of the team's secrets and registered repositories, for `environmentProblems`. */
export async function teamNames(store: Store, teamUid: string): Promise<TeamNames> {
  const [secrets, repositories] = await Promise.all([store.secrets.list(teamUid), store.repositories.list(teamUid)]);
  return { secrets: new Set(secrets.map((s) => s.name)), repositories: new Set(repositories.map((r) => r.name)) };
}
