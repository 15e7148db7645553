import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codexConfig, mcpServerNames, OPENAI_BASE_URL, reasoningEffort, tomlString } from '../src/codex/codex-config.js';
import { codexHarness } from '../src/index.js';

const turn = { workspace: '/run/workspace', home: '/run/home', prompt: 'Do it.', mcpServers: {} };

describe('codexHarness.invocation', () => {
  it('starts exec in the workspace with the config in CODEX_HOME, the prompt after --', () => {
    const invocation = codexHarness.invocation({ ...turn, prompt: '-rf everything', model: 'gpt-5.5' });
    expect(invocation.args).toEqual([
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--dangerously-bypass-approvals-and-sandbox',
      '--cd',
      '/run/workspace',
      '--model',
      'gpt-5.5',
      '--',
      '-rf everything',
    ]);
    expect(invocation.env).toEqual({ CODEX_HOME: '/run/home/.codex' });
    expect(invocation.files.map((f) => f.path)).toEqual(['/run/home/.codex/config.toml']);
  });

  it('continues a session with exec resume', () => {
    const { args } = codexHarness.invocation({ ...turn, prompt: 'More.', resume: 'thread-1' });
    expect(args.slice(-4)).toEqual(['resume', 'thread-1', '--', 'More.']);
    expect(args).not.toContain('--model');
  });

  it('names the endpoint in the config, OpenAI when none is given, and never the key', () => {
    const config = (endpoint?: string) => codexConfig({ ...turn, endpoint });
    expect(config('http://127.0.0.1:9/v1')).toContain('base_url = "http://127.0.0.1:9/v1"');
    expect(config()).toContain(`base_url = ${tomlString(OPENAI_BASE_URL)}`);
    expect(config()).toContain('env_key = "OPENAI_API_KEY"');
  });

  it('writes a command MCP server and a URL one, and leaves out one with neither', () => {
    const config = codexConfig({
      ...turn,
      mcpServers: {
        files: { command: 'npx', args: ['-y', 'server'], env: { TOKEN: 'x"y' } },
        'remote api': { url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer t' } },
        nothing: {},
      },
    });
    expect(config).toContain('[mcp_servers."files"]\ncommand = "npx"\nargs = ["-y", "server"]\nenv = { "TOKEN" = "x\\"y" }\n');
    expect(config).toContain(
      '[mcp_servers."remote_api"]\nurl = "https://mcp.example/mcp"\nhttp_headers = { "Authorization" = "Bearer t" }\n',
    );
    expect(config).not.toContain('nothing');
  });
});

/** ASCII (controls and DEL included) and surrogate halves, paired or not. */
const awkward = fc
  .oneof(fc.constantFrom(0x00, 0x09, 0x0a, 0x22, 0x5c, 0x7f), fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0xd800, max: 0xdfff }))
  .map((code) => String.fromCharCode(code));

describe('tomlString', () => {
  it('is one line, quoted, and reads back as the string (lone surrogates replaced)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: awkward })), (value) => {
        const toml = tomlString(value);
        const wellFormed = value.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
        return /^"[^\u0000-\u0008\u000a-\u001f\u007f]*"$/.test(toml) && JSON.parse(toml) === wellFormed;
      }),
    );
  });
});

describe('mcpServerNames', () => {
  it('gives every server a distinct name Codex accepts, and keeps the names it accepts', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.oneof(fc.string(), fc.stringMatching(/^[a-z_.-]{1,6}$/))), (names) => {
        const result = mcpServerNames(names);
        const given = names.map((n) => result.get(n) ?? '');
        for (const name of given) expect(name).toMatch(/^[a-zA-Z0-9_:@/.-]+$/);
        expect(new Set(given).size).toBe(names.length);
        if (names.every((n) => /^[a-zA-Z0-9_:@/.-]+$/.test(n))) expect(given).toEqual(names);
      }),
    );
  });
});

describe('reasoningEffort', () => {
  it('takes the efforts Codex names, in any case, and nothing else', () => {
    expect(reasoningEffort(' High ')).toBe('high');
    expect(reasoningEffort('xhigh')).toBe('xhigh');
    expect(reasoningEffort('extreme')).toBeUndefined();
    expect(reasoningEffort(undefined)).toBeUndefined();
  });
});
