import type { RunEvent } from '@agentrun/client';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { formatEvent } from '../src/run-events-view.js';

// `--follow`'s lines for a run's tool calls and results (docs/cli.md, "`run`: start a run"): one
// line each, what was asked and how it went, cut to the width.

let id = 0;
const event = (type: string, data: unknown): RunEvent => ({ id: ++id, at: '2026-11-28T10:00:01.000Z', type, data }) as RunEvent;

describe('tool lines', () => {
  it("shows a call's command or path, and its result's first line with how many follow", () => {
    expect(formatEvent(event('tool_call', { call_id: 'a', name: 'Bash', input: { command: 'ls -la', description: 'List' } }))).toBe(
      '→ Bash  ls -la',
    );
    expect(formatEvent(event('tool_result', { call_id: 'a', name: 'Bash', output: 'total 24\nREADME.md\nsrc\n' }))).toBe(
      '← Bash  ok: total 24 (+2 lines)',
    );
    expect(formatEvent(event('tool_call', { call_id: 'b', name: 'write_file', input: { file_path: 'src/a.ts', content: 'x' } }))).toBe(
      '→ write_file  src/a.ts',
    );
    expect(formatEvent(event('tool_call', { call_id: 'c', name: 'shell', input: { command: ['bash', '-lc', 'git status'] } }))).toBe(
      '→ shell  git status',
    );
    expect(formatEvent(event('tool_call', { call_id: 'd', name: 'TodoWrite', input: { todos: [] } }))).toBe('→ TodoWrite  {"todos":[]}');
  });

  it('says error, no output, one more line and truncated in words', () => {
    expect(formatEvent(event('tool_result', { call_id: 'e', name: 'Read', output: 'File does not exist.', is_error: true }))).toBe(
      '← Read  error: File does not exist.',
    );
    expect(formatEvent(event('tool_result', { call_id: 'e', name: 'Bash', output: '' }))).toBe('← Bash  ok (no output)');
    expect(formatEvent(event('tool_result', { call_id: 'e', name: 'Bash', output: '\n  first\nsecond' }))).toBe(
      '← Bash  ok: first (+1 line)',
    );
    expect(formatEvent(event('tool_result', { call_id: 'e', name: 'Bash', output: 'x\ny\nz', truncated: true }))).toBe(
      '← Bash  ok: x (+2 lines, truncated)',
    );
  });

  it("names a result by its call when it does not say, and as 'tool' when no call was seen", () => {
    const toolNames = new Map<string, string>();
    formatEvent(event('tool_call', { call_id: 'k', name: 'Grep', input: { pattern: 'TODO', path: 'src' } }), { toolNames });
    expect(formatEvent(event('tool_result', { call_id: 'k', output: 'src/a.ts:3: TODO' }), { toolNames })).toBe(
      '← Grep  ok: src/a.ts:3: TODO',
    );
    expect(formatEvent(event('tool_result', { call_id: 'never', output: 'orphan' }), { toolNames })).toBe('← tool  ok: orphan');
  });

  it('keeps every tool line within the width, the count of lines left showing', () => {
    const long = 'y'.repeat(500);
    const call = formatEvent(event('tool_call', { call_id: 'w', name: 'Bash', input: { command: `echo ${long}\necho done` } }), {
      width: 60,
    });
    expect(stringWidth(call)).toBeLessThanOrEqual(60);
    expect(call).toMatch(/^→ Bash {2}echo y+…$/);
    const result = formatEvent(event('tool_result', { call_id: 'w', name: 'Bash', output: `${long}\ndone\n` }), { width: 60 });
    expect(stringWidth(result)).toBeLessThanOrEqual(60);
    expect(result).toMatch(/^← Bash {2}ok: y+… \(\+1 line\)$/);
    // Wide characters count as the two columns they take.
    const wide = formatEvent(event('tool_result', { call_id: 'w', output: 'デプロイ'.repeat(40) }), { width: 40 });
    expect(stringWidth(wide)).toBeLessThanOrEqual(40);
    // A multi-line command says more follows.
    expect(formatEvent(event('tool_call', { call_id: 'm', name: 'Bash', input: { command: 'cat <<EOF\nhi\nEOF' } }))).toBe(
      '→ Bash  cat <<EOF …',
    );
  });

  it("reads a truncated input's summary from its JSON text, and shows a malformed tool event as its JSON", () => {
    const text = JSON.stringify({ file_path: '/w/big.txt', content: 'z'.repeat(20_000) }).slice(0, 16_384);
    expect(formatEvent(event('tool_call', { call_id: 't', name: 'Write', input: text, input_truncated: true }))).toBe(
      '→ Write  /w/big.txt',
    );
    expect(formatEvent(event('tool_call', { name: 'Bash' }))).toBe('[10:00:01] tool_call: {"name":"Bash"}');
    expect(formatEvent(event('tool_result', { call_id: 'x' }))).toBe('[10:00:01] tool_result: {"call_id":"x"}');
  });

  it('shows control characters in tool lines as �, and tabs as spaces', () => {
    const line = formatEvent(event('tool_result', { call_id: 'c', name: 'Bash', output: 'a\tb\x1b[2Jc' }));
    expect(line).toBe('← Bash  ok: a b\uFFFD[2Jc');
  });
});

describe('artifact lines', () => {
  const at = '2026-11-28T10:00:01.000Z';
  const artifact = (artifact_type: string, data: unknown) => event('artifact', { artifact_type, created_at: at, data });

  it('shows each artifact as what it is, with the command that downloads a stored one', () => {
    expect(formatEvent(artifact('PULL_REQUEST', { url: 'https://github.com/acme/app/pull/9', branch: 'fix/flaky' }))).toBe(
      '[10:00:01] pull request: https://github.com/acme/app/pull/9 (branch fix/flaky)',
    );
    expect(formatEvent(artifact('PLAN', { document_uid: 'd1', artifact_uid: 'art_p', title: 'Fix it' }))).toBe(
      "[10:00:01] plan: Fix it\n  download: agentrun artifacts download art_p --out 'Fix it.md'",
    );
    expect(formatEvent(artifact('PLAN', { document_uid: 'd2', url: 'https://docs.example.com/plan' }))).toBe(
      '[10:00:01] plan: untitled https://docs.example.com/plan',
    );
    expect(formatEvent(artifact('SCREENSHOT', { artifact_uid: 'art_s', mime_type: 'image/jpeg', description: 'The home page' }))).toBe(
      '[10:00:01] screenshot: The home page, image/jpeg\n  download: agentrun artifacts download art_s --out screenshot.jpg',
    );
    expect(
      formatEvent(
        artifact('FILE', {
          artifact_uid: 'art_f',
          filename: 'report.txt',
          filepath: 'out/report.txt',
          mime_type: 'text/plain',
          size_bytes: 2048,
        }),
      ),
    ).toBe('[10:00:01] file: out/report.txt (text/plain, 2.0 KB)\n  download: agentrun artifacts download art_f --out report.txt');
  });

  it('never prints an artifact as JSON unless it is not of a known shape', () => {
    const lines = [
      formatEvent(artifact('PULL_REQUEST', { url: 'https://x/pull/1', branch: 'b' })),
      formatEvent(artifact('FILE', { artifact_uid: 'u', filename: 'a', filepath: 'a', mime_type: 'text/plain' })),
    ];
    for (const line of lines) expect(line).not.toContain('{');
    expect(formatEvent(artifact('VIDEO', { artifact_uid: 'u' }))).toBe(
      `[10:00:01] artifact: {"artifact_type":"VIDEO","created_at":"${at}","data":{"artifact_uid":"u"}}`,
    );
  });
});
