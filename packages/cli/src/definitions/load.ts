import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  DEFINITION_KINDS,
  type DefinitionText,
  definitionFileKind,
  type LoadedDefinitions,
  problemLine,
  readDefinitions,
} from '@agentrun/core/api';
import { UsageError } from '../errors.js';

/**
 * A factory's definitions directory on disk (docs/definitions.md, "The directory"), read into the
 * body of `POST /factories/{uid}/apply` by core's reader (definitions/directory.ts), the same one
 * that reads a factory's source repository on the server.
 */
export function loadDefinitions(dir: string): LoadedDefinitions {
  const shown = (path: string) => relative(process.cwd(), join(dir, path)) || join(dir, path);
  const problems: string[] = [];
  const texts: DefinitionText[] = [];
  const factory = readText(join(dir, 'factory.yaml'));
  if (factory !== undefined) texts.push({ path: 'factory.yaml', text: factory });
  for (const kind of DEFINITION_KINDS) {
    for (const name of listFiles(join(dir, kind))) {
      const path = `${kind}/${name}`;
      if (definitionFileKind(path) !== kind) continue;
      try {
        texts.push({ path, text: readFileSync(join(dir, path), 'utf8') });
      } catch (error) {
        problems.push(`${shown(path)}: cannot read: ${(error as Error).message}`);
      }
    }
  }
  const loaded = readDefinitions(texts, shown);
  problems.push(...loaded.problems.map(problemLine));
  if (problems.length > 0) throw new UsageError(`invalid definitions in ${dir}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  if (DEFINITION_KINDS.every((kind) => loaded.files[kind].length === 0))
    throw new UsageError(`${dir} has no ${DEFINITION_KINDS.map((kind) => `${kind}/*.yaml`).join(', ')} (docs/definitions.md)`);
  return loaded;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function listFiles(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new UsageError(`cannot read ${dir}: ${(error as Error).message}`);
  }
}
