import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { brokenReferences, checkReference, findReferences, headingsOf } from './support/docs-references.js';

// Every reference to a section of the docs, in code, tests, scripts and the docs themselves, names
// a file and a heading that exist (docs/development.md, "Docs references"): a renamed or removed
// heading fails here with the file and line of each reference to it.
const ROOT = fileURLToPath(new URL('../', import.meta.url));

describe('references to the docs', () => {
  it('all resolve: every file exists, every anchor and quoted heading is one of its headings', () => {
    const broken = brokenReferences(ROOT);
    expect(broken, `broken references:\n${broken.join('\n')}`).toEqual([]);
  });

  it('reads GitHub’s anchors off headings: punctuation and code dropped, repeats numbered, fences skipped', () => {
    const { anchors, slugs } = headingsOf(
      [
        '# Title',
        '## Options of `createAgentRun`',
        '### Following a run live: `Accept: text/event-stream`',
        '## Notes',
        '## Notes',
        '```sh',
        '# not a heading',
        '```',
      ].join('\n'),
    );
    expect([...anchors]).toEqual([
      'title',
      'options-of-createagentrun',
      'following-a-run-live-accept-textevent-stream',
      'notes',
      'notes-1',
    ]);
    expect(slugs.has('not-a-heading')).toBe(false);
    // A reference may name a heading by its title before the colon.
    expect(slugs.has('following-a-run-live')).toBe(true);
  });

  it('finds the prose form across a comment’s lines, several headings, links and anchors', () => {
    const code = [
      '/**',
      ' * Why it is so (docs/production.md, "Notifications after',
      ' * the commit"; docs/cli.md "Output" and "Exit codes"). See docs/run-api.md#idempotency.',
      ' */',
      "const file = 'skills/review/SKILL.md';",
    ].join('\n');
    expect(findReferences('packages/x/src/y.ts', code)).toEqual([
      { file: 'packages/x/src/y.ts', line: 2, target: 'docs/production.md', anchors: [], headings: ['Notifications after the commit'] },
      { file: 'packages/x/src/y.ts', line: 3, target: 'docs/cli.md', anchors: [], headings: ['Output', 'Exit codes'] },
      { file: 'packages/x/src/y.ts', line: 3, target: 'docs/run-api.md', anchors: ['idempotency'], headings: [] },
    ]);
    const markdown = 'See [the API](run-api.md#errors), [this](#title) and (executors.md, "Disk limits", "Containment").';
    expect(findReferences('docs/a.md', markdown).map((r) => [r.target, r.anchors, r.headings])).toEqual([
      ['run-api.md', ['errors'], []],
      ['docs/a.md', ['title'], []],
      ['executors.md', [], ['Disk limits', 'Containment']],
    ]);
  });

  it('reports a missing heading or anchor, and accepts a heading named by its start and …', () => {
    const known = () => headingsOf('# Stores\n## Notifications\n## Group commit, batched context reads\n');
    const ref = (headings: string[], anchors: string[] = []) => ({ file: 'docs/x.md', line: 1, target: 'stores.md', anchors, headings });
    expect(checkReference(ROOT, ref(['Notifications']), known)).toBeUndefined();
    expect(checkReference(ROOT, ref(['Group commit, …']), known)).toBeUndefined();
    expect(checkReference(ROOT, ref(['Slow readers']), known)).toBe('docs/stores.md has no heading "Slow readers"');
    expect(checkReference(ROOT, ref([], ['notification']), known)).toBe('docs/stores.md has no heading #notification');
    expect(checkReference(ROOT, { ...ref(['x']), target: 'docs/nothing.md' }, known)).toBe('no file docs/nothing.md');
  });
});
