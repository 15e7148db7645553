import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import GithubSlugger, { slug } from 'github-slugger';

/**
 * References to a section of the repository's Markdown, as code comments and docs write them, and
 * whether each resolves (docs/development.md, "Docs references"):
 *
 * - a link or a path with an anchor: `[text](run-api.md#idempotency)`, `docs/x.md#anchor` — the
 *   anchor must be one GitHub gives a heading of that file (its slug, `-1` and on for repeats);
 * - the prose form: a path, then one or more quoted headings, joined by commas, `and` or `or`,
 *   bare or in brackets: `docs/x.md, "Heading"`, `docs/x.md "A" and "B"`, `(x.md, "A", "B")`,
 *   `README, "Embed it"` — each heading must be one of that file's, compared by slug, so case and
 *   punctuation do not matter; a heading quoted with a trailing `…` names the start of one.
 *
 * A link, and a path under docs/ without a heading, must name a file that exists. A comment may
 * break a reference over lines: a line break and the comment's leader (`*`, `//`, `#`, `--`) read
 * as one space. In Markdown, fenced blocks are examples and are not read.
 */

/** One reference found in a file. */
interface DocsReference {
  /** The file it is in, relative to the repository. */
  file: string;
  line: number;
  /** The path as written (`docs/x.md`, `../bench/README.md`, `README`). */
  target: string;
  /** Anchors (`#x`) and quoted headings it names; none for a bare path. */
  anchors: string[];
  headings: string[];
}

const COMMENT_BREAK = String.raw`\n[ \t]*(?:\*(?!/)|//|#|--)?[ \t]*`;
/** A quoted heading: no quote inside, line breaks with their comment leader, at most 160 characters. */
const QUOTED = String.raw`"((?:[^"\n]|${COMMENT_BREAK}){1,160}?)"`;
/** Between a path and its first quoted heading: a comma, a bracket, spaces, a line break. */
const LEAD = String.raw`(?:,|:)?(?:[ \t]|${COMMENT_BREAK})+\(?|[ \t]*\(`;
/** Between two quoted headings. */
const JOIN = String.raw`,?(?:[ \t]|${COMMENT_BREAK})*(?:(?:and|or)(?:[ \t]|${COMMENT_BREAK})+)?`;
const PATH = String.raw`(?<![\w./:@-])((?:\.\.?/)*(?:[\w.-]+/)*[\w.-]+\.md|README)(?![\w/-])`;
const REFERENCE = new RegExp(String.raw`${PATH}(#[\w-]+)?\)?((?:${LEAD})${QUOTED}(?:(?:${JOIN})${QUOTED})*)?`, 'g');
const QUOTED_ALL = new RegExp(QUOTED, 'g');
/** Markdown links and images to a local file: `[text](path#anchor)`, `(#anchor)`. */
const LINK = /!?\[(?:[^\]\n]|\n(?!\n))*\]\((?!https?:|mailto:)([^)\s#]*)(#[^)\s]*)?\)/g;

/** Every reference in `text`, the file at `file` (relative to the repository). */
export function findReferences(file: string, text: string): DocsReference[] {
  const refs: DocsReference[] = [];
  const lineAt = lineIndex(text);
  const isMarkdown = file.endsWith('.md');
  const linked = new Set<number>();
  if (isMarkdown) {
    for (const m of text.matchAll(LINK)) {
      const target = m[1] ?? '';
      const anchor = m[2];
      // The link's path itself is read again below, for a quoted heading after it.
      linked.add((m.index ?? 0) + m[0].indexOf('](') + 2);
      refs.push({
        file,
        line: lineAt(m.index ?? 0),
        target: target === '' ? file : target,
        anchors: anchor ? [anchor.slice(1)] : [],
        headings: [],
      });
    }
  }
  // In Markdown, a fenced block is an example (a skill's text, a config file): not the docs' own references.
  const prose = isMarkdown ? withoutFences(text) : text;
  for (const m of prose.matchAll(REFERENCE)) {
    const start = m.index ?? 0;
    const target = m[1] as string;
    const headings = m[3] ? [...m[3].matchAll(QUOTED_ALL)].map((q) => oneLine(q[1] as string)) : [];
    const anchors = m[2] ? [m[2].slice(1)] : [];
    if (linked.has(start)) {
      if (headings.length > 0) refs.push({ file, line: lineAt(start), target, anchors: [], headings });
      continue;
    }
    // A path alone is checked only under docs/: elsewhere a `.md` name in code is as often data
    // (a skill's SKILL.md, a test's README.md) as a reference, and links are read above.
    if (headings.length === 0 && anchors.length === 0 && !target.startsWith('docs/')) continue;
    refs.push({ file, line: lineAt(start), target, anchors, headings });
  }
  return refs;
}

/** The Markdown file a reference in `from` names, relative to the repository, or undefined. */
function resolveTarget(root: string, from: string, target: string): string | undefined {
  if (target === 'README') return 'README.md';
  const candidates = target.includes('/')
    ? [join(dirname(from), target), target]
    : [join(dirname(from), target), target, join('docs', target)];
  for (const candidate of candidates) {
    const path = relative(root, join(root, candidate));
    if (!path.startsWith('..') && existsSync(join(root, path))) return path.split(sep).join('/');
  }
  return undefined;
}

/**
 * A file's headings: their anchors as GitHub makes them, and the slugs a quoted reference may
 * match: each heading's whole text; its parts around a colon (`"List runs"` for "List runs:
 * `GET /agent/runs`", `"run"` for "`run`: start a run", `"Schedules"` for "`schedule create | …`:
 * schedules"); its title before a comma (`"From a checkout"` for "From a checkout, without
 * installing"); and a paragraph's bold run-in label at the start of a line (`"Sizes first"` for
 * "**Sizes first.** Before a body is parsed, …"), which the docs use for a section too small for a
 * heading.
 */
interface Headings {
  anchors: Set<string>;
  slugs: Set<string>;
}

export function headingsOf(markdown: string): Headings {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  const slugs = new Set<string>();
  const prose = withoutFences(markdown);
  for (const line of prose.split('\n')) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const text = headingText(heading);
    anchors.add(slugger.slug(text));
    slugs.add(slug(text));
    const colon = /^(.+?): (.+)$/.exec(text);
    if (colon) {
      slugs.add(slug(colon[1] as string));
      slugs.add(slug(colon[2] as string));
    }
    const comma = /^(.+?), /.exec(text)?.[1];
    if (comma !== undefined) slugs.add(slug(comma));
  }
  for (const m of prose.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1] as string);
  for (const m of prose.matchAll(/^(?:[-*] )?\*\*([^*\n]+?)[.:]?\*\*/gm)) slugs.add(slug(headingText(m[1] as string)));
  return { anchors, slugs };
}

/** What is wrong with `ref`, or undefined when every part of it resolves. */
export function checkReference(root: string, ref: DocsReference, headings: (file: string) => Headings): string | undefined {
  const resolved = resolveTarget(root, ref.file, ref.target);
  if (resolved === undefined) return `no file ${ref.target}`;
  if (ref.anchors.length === 0 && ref.headings.length === 0) return undefined;
  if (!resolved.endsWith('.md')) return `${ref.target} is not Markdown, it has no sections`;
  const known = headings(resolved);
  for (const anchor of ref.anchors) {
    if (!known.anchors.has(anchor)) return `${resolved} has no heading #${anchor}`;
  }
  for (const heading of ref.headings) {
    const prefix = /(?:…|\.\.\.)$/.test(heading);
    const wanted = slug(headingText(heading.replace(/\s*(?:…|\.\.\.)$/, '')));
    const found = prefix ? [...known.slugs].some((s) => s.startsWith(wanted)) : known.slugs.has(wanted);
    if (!found) return `${resolved} has no heading "${heading}"`;
  }
  return undefined;
}

/** The files whose references are checked: source, tests, scripts and Markdown, outside dependencies and builds. */
function referencingFiles(root: string): string[] {
  // This file and its test hold made-up references on purpose, to show the forms and test the checks.
  const own = new Set(['test/support/docs-references.ts', 'test/docs-links.test.ts']);
  const files: string[] = [];
  const skip = new Set(['node_modules', 'dist', '.git', '.venv', '__pycache__', 'coverage']);
  const walk = (dir: string) => {
    for (const name of readdirSync(join(root, dir))) {
      if (skip.has(name)) continue;
      const path = dir === '' ? name : `${dir}/${name}`;
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (/\.(?:ts|tsx|mjs|js|py|md|sh)$/.test(name) || path === '.ci/run') files.push(path);
    }
  };
  for (const dir of ['packages', 'test', 'scripts', 'examples', 'clients', 'bench', 'docs', '.ci']) {
    if (existsSync(join(root, dir))) walk(dir);
  }
  files.push('README.md');
  return files.filter((f) => !own.has(f)).sort();
}

/** Every broken reference of the repository at `root`, as `file:line: the reference: what is wrong`. */
export function brokenReferences(root: string): string[] {
  const cache = new Map<string, Headings>();
  const headings = (file: string) => {
    let known = cache.get(file);
    if (!known) {
      known = headingsOf(readFileSync(join(root, file), 'utf8'));
      cache.set(file, known);
    }
    return known;
  };
  const broken: string[] = [];
  for (const file of referencingFiles(root)) {
    for (const ref of findReferences(file, readFileSync(join(root, file), 'utf8'))) {
      const problem = checkReference(root, ref, headings);
      if (problem) broken.push(`${ref.file}:${ref.line}: ${describe(ref)}: ${problem}`);
    }
  }
  return [...new Set(broken)];
}

const describe = (ref: DocsReference) => [ref.target, ...ref.anchors.map((a) => `#${a}`), ...ref.headings.map((h) => `"${h}"`)].join(' ');

/** A heading's text as GitHub slugs it: a link's text without its target. */
const headingText = (heading: string) => heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');

/** `markdown` with each fenced block's lines blanked, so offsets and line numbers stay. */
function withoutFences(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split('\n')
    .map((line) => {
      const opener = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (opener && (fence === undefined || opener[0] === fence)) {
        fence = fence === undefined ? opener[0] : undefined;
        return ' '.repeat(line.length);
      }
      return fence === undefined ? line : ' '.repeat(line.length);
    })
    .join('\n');
}

const oneLine = (quoted: string) => quoted.replace(new RegExp(COMMENT_BREAK, 'g'), ' ').trim();

function lineIndex(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}
