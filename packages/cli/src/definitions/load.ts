import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type Document, isMap, LineCounter, parseDocument } from 'yaml';
import { UsageError } from '../errors.js';
import { MAX_YAML_ALIASES } from '../files.js';
import { apiKey } from './keys.js';

/**
 * A factory's definitions directory (docs/definitions.md, "The directory"):
 *
 *     factory.yaml             optional: `uid: <factory uid>` (or --factory)
 *     webhooks/<name>.yaml     one per webhook: authMode, signatureScheme, secretName, deliveryIdHeader, enabled
 *     automations/<name>.yaml  one per automation: prompt, enabled, config, triggers
 *     environments/<name>.yaml one per environment: repositories, setup, variables, setupTimeoutSeconds
 *     schedules/<name>.yaml    one per schedule: cronSchedule, timeZone, prompt, config, enabled
 *
 * read into the body of `POST /factories/{uid}/apply`. Each definition remembers its file, so a
 * problem the server finds at `webhooks.1.secret_name` is shown at the file, key and line.
 */

/** One definition file, parsed. */
export interface DefinitionFile {
  /** As shown to the user: relative to the working directory. */
  path: string;
  document: Document;
  lines: LineCounter;
}

export interface LoadedDefinitions {
  factoryUid: string | undefined;
  webhooks: Record<string, unknown>[];
  automations: Record<string, unknown>[];
  environments: Record<string, unknown>[];
  schedules: Record<string, unknown>[];
  /** The file of `webhooks.<i>`, `automations.<i>`, `environments.<i>` and `schedules.<i>`, in the same order. */
  files: { webhooks: DefinitionFile[]; automations: DefinitionFile[]; environments: DefinitionFile[]; schedules: DefinitionFile[] };
}

const YAML_FILE = /^([^.].*)\.ya?ml$/i;

/** The file's content as plain values, or the reason it cannot be had (more than MAX_YAML_ALIASES aliases). */
function contentOf(document: Document): { content: unknown } | { error: string } {
  try {
    return { content: document.toJS({ maxAliasCount: MAX_YAML_ALIASES }) as unknown };
  } catch (error) {
    return { error: (error as Error).message.split('\n')[0] ?? 'cannot be read' };
  }
}

export function loadDefinitions(dir: string): LoadedDefinitions {
  const problems: string[] = [];
  const read = (kind: 'webhooks' | 'automations' | 'environments' | 'schedules') => {
    const files: DefinitionFile[] = [];
    const bodies: Record<string, unknown>[] = [];
    for (const name of listYaml(join(dir, kind))) {
      const file = parseFile(join(dir, kind, name), problems);
      if (!file) continue;
      const read = contentOf(file.document);
      if ('error' in read) {
        problems.push(`${file.path}:1: not valid YAML: ${read.error}`);
        continue;
      }
      const { content } = read;
      if (!isMap(file.document.contents) || content === null || typeof content !== 'object') {
        problems.push(`${file.path}:1: must be a mapping of keys (authMode: token, …)`);
        continue;
      }
      const body: Record<string, unknown> = { name: (YAML_FILE.exec(name) as RegExpExecArray)[1] };
      for (const [key, value] of Object.entries(content)) {
        if (key === 'name') {
          problems.push(`${file.path}:${lineOf(file, ['name'])}: name: a definition's name is its file name; renaming is not supported`);
          continue;
        }
        body[apiKey(key)] = value;
      }
      files.push(file);
      bodies.push(body);
    }
    return { files, bodies };
  };

  const factory = readFactoryUid(dir, problems);
  const webhooks = read('webhooks');
  const automations = read('automations');
  const environments = read('environments');
  const schedules = read('schedules');
  if (problems.length > 0) throw new UsageError(`invalid definitions in ${dir}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  if ([webhooks, automations, environments, schedules].every((k) => k.files.length === 0))
    throw new UsageError(
      `${dir} has no webhooks/*.yaml, automations/*.yaml, environments/*.yaml or schedules/*.yaml (docs/definitions.md)`,
    );
  return {
    factoryUid: factory,
    webhooks: webhooks.bodies,
    automations: automations.bodies,
    environments: environments.bodies,
    schedules: schedules.bodies,
    files: { webhooks: webhooks.files, automations: automations.files, environments: environments.files, schedules: schedules.files },
  };
}

/** The line (1-based) of the deepest node on `path` the file has: a key's own line where it is there. */
export function lineOf(file: DefinitionFile, path: readonly (string | number)[]): number {
  let node: unknown = file.document.contents;
  let offset = 0;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => (p.key as { value?: unknown } | null)?.value === segment);
      if (!pair) break;
      offset = (pair.key as { range?: [number, number, number] }).range?.[0] ?? offset;
      node = pair.value;
    } else if (node && typeof node === 'object' && 'items' in node && Array.isArray(node.items)) {
      const item = node.items[Number(segment)] as { range?: [number, number, number] } | undefined;
      if (!item) break;
      offset = item.range?.[0] ?? offset;
      node = item;
    } else break;
  }
  return file.lines.linePos(offset).line;
}

function listYaml(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => YAML_FILE.test(name))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new UsageError(`cannot read ${dir}: ${(error as Error).message}`);
  }
}

function parseFile(path: string, problems: string[]): DefinitionFile | undefined {
  const shown = relative(process.cwd(), path) || path;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    problems.push(`${shown}: cannot read: ${(error as Error).message}`);
    return undefined;
  }
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const [error] = document.errors;
  if (error) {
    problems.push(`${shown}:${lines.linePos(error.pos[0]).line}: not valid YAML: ${error.message.split('\n')[0]}`);
    return undefined;
  }
  return { path: shown, document, lines };
}

function readFactoryUid(dir: string, problems: string[]): string | undefined {
  const path = join(dir, 'factory.yaml');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const document = parseDocument(text);
  const read = contentOf(document);
  const uid = 'content' in read ? (read.content as { uid?: unknown } | null)?.uid : undefined;
  if (document.errors.length > 0 || typeof uid !== 'string' || uid === '') {
    problems.push(`${relative(process.cwd(), path) || path}: must say uid: <factory uid>`);
    return undefined;
  }
  return uid;
}
