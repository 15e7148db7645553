import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claudeHarness } from '../src/claude/claude-harness.js';
import type { HarnessTurn } from '../src/harness.js';

const turn = (over: Partial<HarnessTurn> = {}): HarnessTurn => ({
  workspace: '/run/workspace',
  home: '/run/home',
  prompt: 'Fix it',
  mcpServers: {},
  ...over,
});

/** The value after `flag` in `args`, or undefined when the flag is absent. */
const after = (args: string[], flag: string): string | undefined => {
  const at = args.indexOf(flag);
  return at === -1 ? undefined : args[at + 1];
};

describe('claude invocation', () => {
  it('starts a first turn in print mode, stream-json, unattended, with only the home settings and no MCP server beyond the run', () => {
    const { args, env, files } = claudeHarness.invocation(turn());
    expect(args.slice(0, 5)).toEqual(['--print', '--output-format', 'stream-json', '--verbose', '--dangerously-skip-permissions']);
    expect(after(args, '--setting-sources')).toBe('user');
    expect(args).toContain('--strict-mcp-config');
    for (const flag of ['--mcp-config', '--model', '--effort', '--resume', '--append-system-prompt-file']) expect(args).not.toContain(flag);
    expect(args.slice(-2)).toEqual(['--', 'Fix it']);
    expect(files).toEqual([]);
    expect(env).toMatchObject({ IS_SANDBOX: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', TMPDIR: '/run/home/tmp' });
    expect(Number(env.CLAUDE_CODE_MAX_RETRIES)).toBeLessThanOrEqual(2);
    expect(env).not.toHaveProperty('HOME');
    expect(env).not.toHaveProperty(claudeHarness.apiKeyVariable);
    expect(env).not.toHaveProperty(claudeHarness.endpointVariable);
  });

  it('maps the model, the reasoning level, the instructions (a file in the home) and a resume', () => {
    const { args, files } = claudeHarness.invocation(
      turn({ model: 'claude-x', reasoningLevel: 'high', instructions: 'Be brief.', resume: 'abc-123', prompt: 'And now?' }),
    );
    expect(after(args, '--model')).toBe('claude-x');
    expect(after(args, '--effort')).toBe('high');
    expect(after(args, '--resume')).toBe('abc-123');
    const instructions = after(args, '--append-system-prompt-file');
    expect(files).toEqual([{ path: instructions, content: 'Be brief.' }]);
    expect(instructions?.startsWith('/run/home/')).toBe(true);
    expect(args.slice(-2)).toEqual(['--', 'And now?']);
  });

  it('writes the MCP servers as a config file of stdio and HTTP servers, leaving out one with neither', () => {
    const { args, files } = claudeHarness.invocation(
      turn({
        mcpServers: {
          local: { command: 'node', args: ['server.js'], env: { TOKEN: 't' } },
          remote: { url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer x' } },
          empty: {},
        },
      }),
    );
    const path = after(args, '--mcp-config');
    expect(path?.startsWith('/run/home/')).toBe(true);
    const file = files.find((f) => f.path === path);
    expect(JSON.parse(file!.content)).toEqual({
      mcpServers: {
        local: { type: 'stdio', command: 'node', args: ['server.js'], env: { TOKEN: 't' } },
        remote: { type: 'http', url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer x' } },
      },
    });
  });

  it('passes any prompt as the last argument, after the end of options', () => {
    fc.assert(
      fc.property(fc.string(), fc.option(fc.string(), { nil: undefined }), (prompt, resume) => {
        const { args } = claudeHarness.invocation(turn({ prompt, resume }));
        expect(args.at(-1)).toBe(prompt);
        expect(args.at(-2)).toBe('--');
      }),
    );
  });
});
