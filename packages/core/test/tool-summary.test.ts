import { describe, expect, it } from 'vitest';
import { MAX_SUMMARY, toolInputText, toolSummary } from '../src/run/tool-summary.js';

// The one-line summary of a tool call's input on the run page, and its whole input (no browser).

describe('toolSummary', () => {
  it("shows a shell tool's command, whatever the agent calls the tool", () => {
    expect(toolSummary('Bash', { command: 'ls -la', description: 'List files' })).toBe('ls -la');
    expect(toolSummary('run_shell_command', { command: 'npm test' })).toBe('npm test');
    expect(toolSummary('shell', { command: ['bash', '-lc', 'git status --short'] })).toBe('git status --short');
    expect(toolSummary('shell', { command: ['rg', '-n', 'TODO'] })).toBe('rg -n TODO');
  });

  it("shows a file tool's path, and a search's pattern with where it looks", () => {
    expect(toolSummary('Write', { file_path: '/w/notes.md', content: 'hello' })).toBe('/w/notes.md');
    expect(toolSummary('write_file', { file_path: 'src/a.ts', content: 'x' })).toBe('src/a.ts');
    expect(toolSummary('read_file', { absolute_path: '/w/README.md' })).toBe('/w/README.md');
    expect(toolSummary('Grep', { pattern: 'TODO', path: 'src' })).toBe('TODO in src');
    expect(toolSummary('Glob', { pattern: '**/*.ts' })).toBe('**/*.ts');
    expect(toolSummary('WebFetch', { url: 'https://example.com', prompt: 'Summarise' })).toBe('https://example.com');
  });

  it('shows any other input as compact JSON', () => {
    expect(toolSummary('TodoWrite', { todos: [{ content: 'a', status: 'pending' }] })).toBe(
      '{"todos":[{"content":"a","status":"pending"}]}',
    );
    expect(toolSummary('mcp__db__query', { sql: 'select 1' })).toBe('{"sql":"select 1"}');
    expect(toolSummary('noop', {})).toBe('{}');
    expect(toolSummary('noop', null)).toBe('null');
    expect(toolSummary('noop', undefined)).toBe('');
    // A shell tool whose command is not there says what it was given.
    expect(toolSummary('Bash', { timeout: 5 })).toBe('{"timeout":5}');
  });

  it('keeps to one line: the first with text, marked when more follow, cut at its length', () => {
    expect(toolSummary('Bash', { command: '\ncat <<EOF > a.txt\nhello\nEOF\n' })).toBe('cat <<EOF > a.txt …');
    const long = toolSummary('Bash', { command: `echo ${'y'.repeat(500)}` });
    expect([...long]).toHaveLength(MAX_SUMMARY);
    expect(long.endsWith('…')).toBe(true);
  });

  it('reads a truncated input from the start of its JSON text', () => {
    const text = JSON.stringify({ file_path: '/w/big.txt', content: 'z'.repeat(20_000) }).slice(0, 16_384);
    expect(toolSummary('Write', text, true)).toBe('/w/big.txt');
    const command = JSON.stringify({ command: 'echo "a \\"quoted\\" word"', description: 'x'.repeat(20_000) }).slice(0, 200);
    expect(toolSummary('Bash', command, true)).toBe('echo "a \\"quoted\\" word"');
    // A key inside a string value is not a field; nothing known is whole: the text itself.
    const nested = JSON.stringify({ content: '{"path": "/etc/passwd"}', more: 'm'.repeat(50) }).slice(0, 60);
    expect(toolSummary('Write', nested, true)).toBe(nested);
  });
});

describe('toolInputText', () => {
  it('is pretty JSON, or a truncated input as it came', () => {
    expect(toolInputText({ command: 'ls' })).toBe('{\n  "command": "ls"\n}');
    expect(toolInputText('{"command":"l', true)).toBe('{"command":"l');
  });
});
