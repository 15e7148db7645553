import type { FieldError } from '../errors.js';
import { invalidRequest } from '../errors.js';
import type { Store } from '../store/store.js';
import type { EnvironmentRepository } from './records.js';

/**
 * `environment_id` names an environment of the team (seed 2.2: it selects one), at run create and
 * at automation save alike (docs/run-api.md, `config.environment_id`): an unknown one is a 400
 * naming it and the field it came from.
 */
export async function requireEnvironmentId(store: Store, teamUid: string, id: string | undefined, field: string): Promise<void> {
  if (id === undefined) return;
  if (!(await store.environments.get(teamUid, id))) throw invalidRequest(`invalid ${field}: no environment ${id} in this team`);
}

/**
 * What an environment's body must also be beyond its schema: two repositories never cloned into
 * one directory (or one inside the other), and each variable's team secret there when it is saved
 * (one deleted later fails the run that needs it). `at` prefixes each path (`''` in the API,
 * `environments.<i>.` in an apply).
 */
export function environmentProblems(
  body: { repositories: readonly EnvironmentRepository[]; variables: Readonly<Record<string, string>> },
  secretNames: ReadonlySet<string>,
  at: string,
): FieldError[] {
  const problems: FieldError[] = [];
  const seen: [string, number][] = [];
  body.repositories.forEach((r, i) => {
    const first = seen.find(([d]) => d === r.directory || d.startsWith(`${r.directory}/`) || r.directory.startsWith(`${d}/`));
    if (first)
      problems.push({ path: `${at}repositories.${i}.directory`, detail: `${r.directory} overlaps repositories.${first[1]} (${first[0]})` });
    else seen.push([r.directory, i]);
  });
  for (const [variable, secret] of Object.entries(body.variables)) {
    if (!secretNames.has(secret))
      problems.push({
        path: `${at}variables.${variable}`,
        detail: `no team secret named ${secret}; create it first (agentrun secret create ${secret} --team)`,
      });
  }
  return problems;
}

/** The names of the team's secrets, for `environmentProblems`. */
export async function teamSecretNames(store: Store, teamUid: string): Promise<Set<string>> {
  return new Set((await store.secrets.list(teamUid)).map((s) => s.name));
}
