import type { FieldError } from '../errors.js';
import type { SkillCatalog } from '../skills/skill-catalog.js';
import { isRepositoryName } from './schemas.js';

/**
 * An environment's clone URLs that the host's repository reader would never read (a path on the
 * server where local paths are off, a path into its git cache, a transport it does not speak):
 * refused when the environment is saved, each at its path, rather than failing every run's setup
 * (docs/repositories.md, "URLs"). A registered `<owner>/<repo>` was checked when it was registered.
 */
export async function repositoryUrlProblems(
  skills: SkillCatalog,
  repositories: readonly { repository: string }[],
  at: string,
): Promise<FieldError[]> {
  const problems: FieldError[] = [];
  for (const [i, r] of repositories.entries()) {
    if (isRepositoryName(r.repository)) continue;
    const refusal = await skills.urlRefusal(r.repository);
    if (refusal !== undefined) problems.push({ path: `${at}repositories.${i}.repository`, detail: refusal });
  }
  return problems;
}

/** The same for each environment file of an apply, at `environments.<i>.repositories.<j>.repository`. */
export async function environmentFilesUrlProblems(
  skills: SkillCatalog,
  files: readonly { repositories: readonly { repository: string }[] }[],
): Promise<FieldError[]> {
  const problems: FieldError[] = [];
  for (const [i, file] of files.entries()) problems.push(...(await repositoryUrlProblems(skills, file.repositories, `environments.${i}.`)));
  return problems;
}
