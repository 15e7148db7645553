import { type Document, isMap, LineCounter, parseDocument } from 'yaml';
import { apiKey } from './file-keys.js';

/**
 * A factory's definitions directory (docs/definitions.md, "The directory"), from the text of its
 * files, read into the body of `POST /factories/{uid}/apply`:
 *
 *     factory.yaml             optional: `uid: <factory uid>`
 *     webhooks/<name>.yaml     one per webhook: authMode, signatureScheme, secretName, deliveryIdHeader, enabled
 *     automations/<name>.yaml  one per automation: prompt, enabled, config, triggers
 *     environments/<name>.yaml one per environment: repositories, setup, variables, setupTimeoutSeconds, image, limits
 *     schedules/<name>.yaml    one per schedule: cronSchedule, timeZone, prompt, config, enabled
 *
 * Pure, so the one decider serves both readers of a directory: the CLI's `agentrun apply` (files
 * on disk) and a factory's source repository (files at a commit, sources/sync.ts). Each definition
 * remembers its file, so a problem the server finds at `webhooks.1.secret_name` is placed at the
 * file, key and line (locate.ts).
 */

/** The kinds of definition file, each a folder of the directory. */
export const DEFINITION_KINDS = ['webhooks', 'automations', 'environments', 'schedules'] as const;
export type DefinitionKind = (typeof DEFINITION_KINDS)[number];

/** One file of the directory: its path relative to the directory (`webhooks/github.yaml`) and its text. */
export interface DefinitionText {
  path: string;
  text: string;
}

/** One definition file, parsed. */
export interface DefinitionFile {
  /** As shown to the user (the CLI: relative to the working directory; a source: relative to the repository). */
  path: string;
  document: Document;
  lines: LineCounter;
}

/** A problem at a file and line (line 0: the file as a whole). */
export interface DefinitionProblem {
  path: string;
  line: number;
  message: string;
}

export interface LoadedDefinitions {
  factoryUid: string | undefined;
  webhooks: Record<string, unknown>[];
  automations: Record<string, unknown>[];
  environments: Record<string, unknown>[];
  schedules: Record<string, unknown>[];
  /** The file of `webhooks.<i>`, `automations.<i>`, `environments.<i>` and `schedules.<i>`, in the same order. */
  files: Record<DefinitionKind, DefinitionFile[]>;
  /** What keeps the directory from being sent: YAML that does not parse, a file that is no mapping, a `name` key. */
  problems: DefinitionProblem[];
}

const YAML_FILE = /^([^./][^/]*)\.ya?ml$/i;

/**
 * Aliases a file may expand: a definition needs none or a few, and a "billion laughs" file of
 * nested aliases would take the memory of the machine. toJS refuses more (a problem of its file).
 */
export const MAX_YAML_ALIASES = 100;

/**
 * Which file of the directory `path` (relative to it) is: `factory.yaml`, a definition of a kind
 * (a `.yaml` or `.yml` file directly in its folder, not hidden), or none (ignored).
 */
export function definitionFileKind(path: string): DefinitionKind | 'factory' | undefined {
  if (path === 'factory.yaml') return 'factory';
  const slash = path.indexOf('/');
  const kind = path.slice(0, slash);
  return (DEFINITION_KINDS as readonly string[]).includes(kind) && YAML_FILE.test(path.slice(slash + 1))
    ? (kind as DefinitionKind)
    : undefined;
}

/** Read the directory's files (any order; others are ignored), each shown as `show(path)`. */
export function readDefinitions(texts: readonly DefinitionText[], show: (path: string) => string = (p) => p): LoadedDefinitions {
  const problems: DefinitionProblem[] = [];
  const loaded: LoadedDefinitions = {
    factoryUid: undefined,
    webhooks: [],
    automations: [],
    environments: [],
    schedules: [],
    files: { webhooks: [], automations: [], environments: [], schedules: [] },
    problems,
  };
  const sorted = [...texts].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const { path, text } of sorted) {
    const kind = definitionFileKind(path);
    if (kind === 'factory') loaded.factoryUid = factoryUidOf(text, show(path), problems);
    else if (kind) readDefinition(kind, path, text, show(path), loaded);
  }
  return loaded;
}

function readDefinition(kind: DefinitionKind, path: string, text: string, shown: string, loaded: LoadedDefinitions): void {
  const { problems } = loaded;
  const file = parseFile(text, shown, problems);
  if (!file) return;
  const read = contentOf(file.document);
  if ('error' in read) {
    problems.push({ path: shown, line: 1, message: `not valid YAML: ${read.error}` });
    return;
  }
  const { content } = read;
  if (!isMap(file.document.contents) || content === null || typeof content !== 'object') {
    problems.push({ path: shown, line: 1, message: 'must be a mapping of keys (authMode: token, …)' });
    return;
  }
  const name = (YAML_FILE.exec(path.slice(kind.length + 1)) as RegExpExecArray)[1];
  const body: Record<string, unknown> = { name };
  for (const [key, value] of Object.entries(content)) {
    if (key === 'name') {
      problems.push({
        path: shown,
        line: lineOf(file, ['name']),
        message: "name: a definition's name is its file name; renaming is not supported",
      });
      continue;
    }
    body[apiKey(key)] = value;
  }
  loaded.files[kind].push(file);
  loaded[kind].push(body);
}

/** The file's content as plain values, or the reason it cannot be had (more than MAX_YAML_ALIASES aliases). */
function contentOf(document: Document): { content: unknown } | { error: string } {
  try {
    return { content: document.toJS({ maxAliasCount: MAX_YAML_ALIASES }) as unknown };
  } catch (error) {
    return { error: (error as Error).message.split('\n')[0] ?? 'cannot be read' };
  }
}

function parseFile(text: string, shown: string, problems: DefinitionProblem[]): DefinitionFile | undefined {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const [error] = document.errors;
  if (error) {
    problems.push({ path: shown, line: lines.linePos(error.pos[0]).line, message: `not valid YAML: ${error.message.split('\n')[0]}` });
    return undefined;
  }
  return { path: shown, document, lines };
}

function factoryUidOf(text: string, shown: string, problems: DefinitionProblem[]): string | undefined {
  const document = parseDocument(text);
  const read = contentOf(document);
  const uid = 'content' in read ? (read.content as { uid?: unknown } | null)?.uid : undefined;
  if (document.errors.length > 0 || typeof uid !== 'string' || uid === '') {
    problems.push({ path: shown, line: 0, message: 'must say uid: <factory uid>' });
    return undefined;
  }
  return uid;
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

/** A problem as one line: `webhooks/ci.yaml:3: secretName: …` (no line: `factory.yaml: …`). */
export const problemLine = (p: DefinitionProblem): string => `${p.path}${p.line > 0 ? `:${p.line}` : ''}: ${p.message}`;
