import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { geminiContext } from '../src/gemini/gemini-context.js';
import { geminiHarness } from '../src/gemini/gemini-harness.js';
import { geminiSettings } from '../src/gemini/gemini-settings.js';
import type { HarnessTurn } from '../src/harness.js';

// How a turn becomes Gemini CLI's argv, environment and files (docs/harnesses.md, "Gemini CLI").
// gemini.cli.test.ts runs the real CLI on them; here are the mappings and their edge cases.

const turn = (more: Partial<HarnessTurn> = {}): HarnessTurn => ({
  workspace: '/run/workspace',
  home: '/run/home',
  prompt: 'Fix the bug',
  mcpServers: {},
  ...more,
});

const settingsOf = (t: HarnessTurn) => {
  const file = geminiHarness.invocation(t).files.find((f) => f.path === '/run/home/.gemini/settings.json');
  return JSON.parse(file?.content ?? 'null') as { mcpServers: Record<string, unknown>; modelConfigs?: unknown };
};

/** Gemini CLI 0.61's expansion of `$VAR`, `${VAR}`, `${VAR:-default}` in its settings (resolveEnvVarsInString). */
const expandSettings = (value: string, env: Record<string, string>): string =>
  value.replace(/\$(?:(\w+)|{([^}]+?)(?::-([^}]*))?})/g, (match, a?: string, b?: string, fallback?: string) => {
    const name = a ?? b ?? '';
    return env[name] ?? fallback ?? match;
  });

/** Gemini CLI 0.61's imports in a context file (memoryImportProcessor's findImports), outside code. */
const imports = (text: string): number[] => {
  const code = [...text.matchAll(/(`+)[\s\S]*?\1/g)].map((m) => [m.index, m.index + m[0].length]);
  const found: number[] = [];
  for (let i = text.indexOf('@'); i !== -1; i = text.indexOf('@', i + 1)) {
    if (i > 0 && !' \t\n\r'.includes(text[i - 1] as string)) continue;
    const next = text[i + 1] ?? '';
    if (!/[./A-Za-z]/.test(next)) continue;
    if (!code.some(([s, e]) => i >= (s as number) && i < (e as number))) found.push(i);
  }
  return found;
};

describe('geminiHarness.invocation', () => {
  it('starts a headless turn in stream-json with every tool allowed, the prompt kept whole', () => {
    const { args } = geminiHarness.invocation(turn({ prompt: '--version\n-m other', model: 'gemini-2.5-pro' }));
    expect(args).toEqual(['--prompt=--version\n-m other', '--output-format=stream-json', '--approval-mode=yolo', '--model=gemini-2.5-pro']);
  });

  it('continues a session with --resume, and takes the CLI default Pro model when none is named', () => {
    const { args } = geminiHarness.invocation(turn({ resume: '6ba597e4-1fe9-44ae-a9a0-2c125697ba11' }));
    expect(args).toContain('--model=pro');
    expect(args.at(-1)).toBe('--resume=6ba597e4-1fe9-44ae-a9a0-2c125697ba11');
  });

  it('keeps its state, error reports and settings in the home, and host system settings out', () => {
    const { env, files } = geminiHarness.invocation(turn());
    expect(env).toEqual({
      GEMINI_CLI_NO_RELAUNCH: 'true',
      GEMINI_CLI_SYSTEM_SETTINGS_PATH: '/run/home/.gemini/system-settings.json',
      TMPDIR: '/run/home/.gemini/tmp',
    });
    expect(files.map((f) => f.path)).toEqual(['/run/home/.gemini/settings.json', '/run/home/.gemini/GEMINI.md']);
    expect(files[1]?.content).toBe('');
  });

  it('selects API-key auth and turns off what reaches past the model endpoint', () => {
    expect(settingsOf(turn())).toMatchObject({
      security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: 2 },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      advanced: { ignoreLocalEnv: true },
      mcpServers: {},
    });
    expect(settingsOf(turn())).not.toHaveProperty('modelConfigs');
  });

  it('maps stdio and URL MCP servers, each with a bounded timeout', () => {
    const { mcpServers } = settingsOf(
      turn({
        mcpServers: {
          files: { command: 'mcp-files', args: ['--root', '.'], env: { LEVEL: 'debug' } },
          remote: { url: 'https://mcp.example/mcp', headers: { authorization: 'Bearer t' } },
          neither: {},
        },
      }),
    );
    expect(mcpServers).toEqual({
      files: { command: 'mcp-files', args: ['--root', '.'], env: { LEVEL: 'debug' }, timeout: 60_000 },
      remote: { url: 'https://mcp.example/mcp', headers: { authorization: 'Bearer t' }, timeout: 60_000 },
    });
  });

  it('property: MCP values reach the CLI as given, whatever `$` they hold, past its variable expansion', () => {
    const withDollars = fc.string({ unit: fc.constantFrom('$', '{', '}', ':', '-', 'A', 'GEMINI_API_KEY', ' ', '\\') });
    fc.assert(
      fc.property(withDollars, withDollars, (arg, url) => {
        const { mcpServers } = geminiSettings(turn({ mcpServers: { a: { command: 'x', args: [arg] }, b: { url } } }));
        const env = { GEMINI_API_KEY: 'secret', A: 'a' };
        const servers = mcpServers as { a: { args: string[] }; b: { url: string } };
        expect(expandSettings(servers.a.args[0] as string, env)).toBe(arg);
        expect(expandSettings(servers.b.url, env)).toBe(url);
      }),
    );
  });

  it('maps a reasoning level to the thinking of Gemini 3 and 2.5 models, and ignores one it does not know', () => {
    expect(settingsOf(turn({ reasoningLevel: 'High', model: 'gemini-2.5-flash' })).modelConfigs).toEqual({
      customOverrides: [
        { match: { model: 'chat-base-3' }, modelConfig: { generateContentConfig: { thinkingConfig: { thinkingLevel: 'HIGH' } } } },
        { match: { model: 'chat-base-2.5' }, modelConfig: { generateContentConfig: { thinkingConfig: { thinkingBudget: 24_576 } } } },
        { match: { model: 'gemini-2.5-flash' }, modelConfig: { generateContentConfig: { thinkingConfig: { thinkingBudget: 24_576 } } } },
      ],
    });
    for (const reasoningLevel of ['extreme', 'constructor', '']) {
      expect(settingsOf(turn({ reasoningLevel }))).not.toHaveProperty('modelConfigs');
    }
  });
});

describe('geminiContext', () => {
  it('keeps `@` words from being imported, and code as it is', () => {
    expect(geminiContext('Use @types/node, mail a@b.c, see `@x/y`.\n@./notes.md @ 1')).toBe(
      'Use \u2060@types/node, mail a@b.c, see `@x/y`.\n\u2060@./notes.md @ 1',
    );
  });

  it('property: nothing is left for the CLI to import, and only word joiners are added', () => {
    const text = fc.string({ unit: fc.constantFrom('@', '`', ' ', '\n', '\t', 'a', '.', '/', '1', 'x@y') });
    fc.assert(
      fc.property(text, (instructions) => {
        const context = geminiContext(instructions);
        expect(imports(context)).toEqual([]);
        expect(context.replaceAll('\u2060', '')).toBe(instructions.replaceAll('\u2060', ''));
      }),
    );
  });
});
