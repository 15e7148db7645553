import { describe, expect, it } from 'vitest';
import { parseInline, parseMarkdown, safeHref } from '../src/app/markdown.js';
import { runCurlLines } from '../src/app/run-curl.js';

// A plan's Markdown as the run page draws it (a safe subset, as elements), and a run's API calls
// as curl lines (no browser).

describe('parseMarkdown', () => {
  it('reads headings, paragraphs, lists, code, quotes and rules', () => {
    const blocks = parseMarkdown(
      [
        '# Fix the flaky test',
        '',
        'The test waits on a **timer**; it should wait',
        'on the *event*.',
        '',
        '## Steps',
        '- Read `test/flaky.test.ts`',
        '- [x] Replace the [timer](https://example.com/t)',
        '  and run it again',
        '',
        '3. three',
        '4) four',
        '',
        '```ts',
        'await once(emitter, "done");',
        '```',
        '> a note',
        '---',
      ].join('\n'),
    );
    expect(blocks.map((b) => b.kind)).toEqual(['heading', 'paragraph', 'heading', 'list', 'list', 'code', 'quote', 'rule']);
    expect(blocks[0]).toEqual({ kind: 'heading', level: 1, children: [{ kind: 'text', text: 'Fix the flaky test' }] });
    expect(blocks[1]).toEqual({
      kind: 'paragraph',
      children: [
        { kind: 'text', text: 'The test waits on a ' },
        { kind: 'strong', children: [{ kind: 'text', text: 'timer' }] },
        { kind: 'text', text: '; it should wait on the ' },
        { kind: 'em', children: [{ kind: 'text', text: 'event' }] },
        { kind: 'text', text: '.' },
      ],
    });
    expect(blocks[3]).toEqual({
      kind: 'list',
      ordered: false,
      start: 1,
      items: [
        [
          { kind: 'text', text: 'Read ' },
          { kind: 'code', text: 'test/flaky.test.ts' },
        ],
        [
          { kind: 'text', text: 'Replace the ' },
          { kind: 'link', href: 'https://example.com/t', children: [{ kind: 'text', text: 'timer' }] },
          { kind: 'text', text: ' and run it again' },
        ],
      ],
    });
    expect(blocks[4]).toMatchObject({ kind: 'list', ordered: true, start: 3 });
    expect(blocks[5]).toEqual({ kind: 'code', text: 'await once(emitter, "done");' });
  });

  it('keeps raw HTML as text and drops links that are not http(s) or mailto', () => {
    expect(parseInline('<img src=x onerror=alert(1)> <script>alert(1)</script>')).toEqual([
      { kind: 'text', text: '<img src=x onerror=alert(1)> <script>alert(1)</script>' },
    ]);
    expect(parseInline('[click](javascript:alert%281%29) [x](data:text/html,hi) [mail](mailto:a@b.c)')).toEqual([
      { kind: 'text', text: 'click' },
      { kind: 'text', text: ' ' },
      { kind: 'text', text: 'x' },
      { kind: 'text', text: ' ' },
      { kind: 'link', href: 'mailto:a@b.c', children: [{ kind: 'text', text: 'mail' }] },
    ]);
    expect(safeHref(' JavaScript:alert(1)')).toBeUndefined();
    expect(safeHref('HTTPS://example.com')).toBe('HTTPS://example.com');
  });

  it('leaves underscores inside words alone', () => {
    expect(parseInline('edit run_page_view and _this_')).toEqual([
      { kind: 'text', text: 'edit run_page_view and ' },
      { kind: 'em', children: [{ kind: 'text', text: 'this' }] },
    ]);
  });
});

describe('runCurlLines', () => {
  it('gives the run’s calls with $AGENTRUN_API_KEY for the key, quoted for the shell', () => {
    const lines = runCurlLines('https://agents.example.com/x/', "run'1");
    expect(lines.map((l) => l.label)).toEqual(['Get the run', 'Its events', 'Cancel it', 'Send a follow-up']);
    expect(lines[0]?.command).toBe(
      `curl -sS -H "Authorization: Bearer $AGENTRUN_API_KEY" 'https://agents.example.com/x/api/v1/agent/runs/run'\\''1'`,
    );
    expect(lines[2]?.command).toContain(
      `-X POST -H "Authorization: Bearer $AGENTRUN_API_KEY" 'https://agents.example.com/x/api/v1/agent/runs/run'\\''1/cancel'`,
    );
    expect(lines[3]?.command).toContain(
      `-d '{"message":"Your message"}' 'https://agents.example.com/x/api/v1/agent/runs/run'\\''1/followups'`,
    );
  });
});
