import { type DefinitionText, definitionFileKind } from '../definitions/directory.js';
import type { RepositoryAccess, RepositoryReader } from '../repositories/reader.js';
import type { SourceApplyError } from './records.js';

/** Definition files read per commit, at most: the apply body takes 100 webhooks, 200 automations, 50 environments and factory.yaml. */
const MAX_DEFINITION_FILES = 351;

/**
 * The definition files of `directory` at `commit` (docs/definitions.md, "The directory"), paths
 * relative to the directory; other files are not read. Or why they cannot be had, at the
 * directory: too many of them, or none at all (an empty directory would delete the whole factory;
 * a wrong `directory` must fail, not prune).
 */
export async function readCommitDefinitions(
  reader: RepositoryReader,
  access: RepositoryAccess,
  commit: string,
  directory: string,
): Promise<{ texts: DefinitionText[] } | { errors: SourceApplyError[] }> {
  const prefix = directory === '' ? '' : `${directory}/`;
  const shown = directory === '' ? '.' : directory;
  const paths = (await reader.listFiles(access, commit, directory))
    .map((path) => path.slice(prefix.length))
    .filter((relative) => definitionFileKind(relative) !== undefined);
  if (paths.length > MAX_DEFINITION_FILES)
    return { errors: [{ path: shown, line: 0, message: `${paths.length} definition files; at most ${MAX_DEFINITION_FILES} are read` }] };
  if (!paths.some((p) => p !== 'factory.yaml'))
    return {
      errors: [
        {
          path: shown,
          line: 0,
          message: `no webhooks/*.yaml, automations/*.yaml or environments/*.yaml at ${commit.slice(0, 12)} (docs/definitions.md)`,
        },
      ],
    };
  const texts: DefinitionText[] = [];
  for (const path of paths) {
    const text = await reader.readFile(access, commit, `${prefix}${path}`);
    if (text !== undefined) texts.push({ path, text });
  }
  return { texts };
}
