import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chosenStore, readSettings } from '../src/read-settings.js';
import { SETTINGS } from '../src/settings.js';
import { settingsHelp, settingsMarkdown } from '../src/settings-docs.js';

const SRC = new URL('../src/', import.meta.url);
const names = Object.keys(SETTINGS);

/** The message readSettings throws for this environment. */
const refusal = (env: Record<string, string>) => {
  try {
    readSettings(env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`readSettings took ${JSON.stringify(env)}`);
};

describe('the table of settings', () => {
  it('gives the defaults of an empty environment, blank values included', () => {
    const settings = readSettings({ PORT: '', HOST: '  ' });
    expect(settings).toMatchObject({
      PORT: 8080,
      HOST: '0.0.0.0',
      AGENTRUN_DATA_DIR: './.agentrun',
      AGENTRUN_SHUTDOWN_GRACE_MS: 10_000,
      AGENTRUN_EXECUTOR: 'demo',
      AGENTRUN_HARNESSES: 'auto',
      AGENTRUN_GIT_ALLOW_LOCAL_PATHS: false,
      AGENTRUN_AGENT_SANDBOX_NETWORK: true,
    });
    expect(settings.DATABASE_URL).toBeUndefined();
    expect(settings.AGENTRUN_SECRET_KEY).toBeUndefined();
  });

  it('reads each kind into its value', () => {
    expect(
      readSettings({
        PORT: '0',
        AGENTRUN_METRICS_PORT: '9464',
        AGENTRUN_POLL_INTERVAL_MS: '25',
        AGENTRUN_SESSION_IDLE_MS: '0',
        AGENTRUN_CALLBACKS_ALLOW_PRIVATE: '1',
        AGENTRUN_AGENT_SANDBOX_NETWORK: '0',
        AGENTRUN_HARNESSES: 'claude, codex',
        AGENTRUN_AGENT_USER: '1000:1001',
        AGENTRUN_AGENT_ENV_ALLOW: 'LANG, TZ,',
        AGENTRUN_AGENT_SANDBOX_READ_ONLY: '/opt/tools',
        AGENTRUN_PUBLIC_URL: 'https://agents.example.com',
      }),
    ).toMatchObject({
      PORT: 0,
      AGENTRUN_METRICS_PORT: 9464,
      AGENTRUN_POLL_INTERVAL_MS: 25,
      AGENTRUN_SESSION_IDLE_MS: 0,
      AGENTRUN_CALLBACKS_ALLOW_PRIVATE: true,
      AGENTRUN_AGENT_SANDBOX_NETWORK: false,
      AGENTRUN_HARNESSES: ['claude', 'codex'],
      AGENTRUN_AGENT_USER: { uid: 1000, gid: 1001 },
      AGENTRUN_AGENT_ENV_ALLOW: ['LANG', 'TZ'],
      AGENTRUN_AGENT_SANDBOX_READ_ONLY: ['/opt/tools'],
      AGENTRUN_PUBLIC_URL: 'https://agents.example.com',
    });
  });

  it('reads AGENTRUN_SECRET_KEY as one key or a list whose first key seals', () => {
    expect(readSettings({ AGENTRUN_SECRET_KEY: 'abc=' }).AGENTRUN_SECRET_KEY).toBe('abc=');
    expect(readSettings({ AGENTRUN_SECRET_KEY: 'new= , old=' }).AGENTRUN_SECRET_KEY).toEqual(['new=', 'old=']);
  });

  it('refuses a wrong value with one line naming the variable', () => {
    expect(refusal({ PORT: 'abc' })).toBe('PORT must be a port number, got "abc"');
    expect(refusal({ PORT: '65536' })).toBe('PORT must be a port number, got "65536"');
    expect(refusal({ AGENTRUN_SHUTDOWN_GRACE_MS: '1.5' })).toBe(
      'AGENTRUN_SHUTDOWN_GRACE_MS must be a whole number of milliseconds above 0, got "1.5"',
    );
    expect(refusal({ AGENTRUN_GIT_ALLOW_LOCAL_PATHS: 'yes' })).toBe('AGENTRUN_GIT_ALLOW_LOCAL_PATHS must be 0 or 1, got "yes"');
    expect(refusal({ AGENTRUN_STORE: 'sqlite' })).toBe('AGENTRUN_STORE must be one of embedded, postgres, memory, got "sqlite"');
    expect(refusal({ AGENTRUN_PUBLIC_URL: 'agents.example.com' })).toBe(
      'AGENTRUN_PUBLIC_URL must be an http(s) URL, got "agents.example.com"',
    );
    expect(refusal({ AGENTRUN_AGENT_USER: 'agent' })).toBe('AGENTRUN_AGENT_USER must be uid:gid (numbers), got "agent"');
    expect(refusal({ AGENTRUN_AGENT_SANDBOX_READ_WRITE: 'cache' })).toBe(
      'AGENTRUN_AGENT_SANDBOX_READ_WRITE must be comma-separated absolute paths, got "cache"',
    );
  });

  it('never echoes a secret it refuses', () => {
    expect(refusal({ AGENTRUN_SECRET_KEY: 'new-key=,,old-key=' })).toBe(
      'AGENTRUN_SECRET_KEY must be a key, or comma-separated keys with no empty entry, got a value of 18 characters',
    );
    expect(refusal({ AGENTRUN_API_KEY: 'hunter2' })).toBe('AGENTRUN_API_KEY must be at least 16 characters, got a value of 7 characters');
    expect(refusal({ DATABASE_URL: 'mysql://u:hunter2@db/x' })).not.toContain('hunter2');
  });

  it('chooses the store: PostgreSQL with DATABASE_URL, else embedded, memory when asked', () => {
    const url = 'postgres://db/agentrun';
    expect(chosenStore(readSettings({}))).toBe('embedded');
    expect(chosenStore(readSettings({ DATABASE_URL: url }))).toBe('postgres');
    expect(chosenStore(readSettings({ DATABASE_URL: url, AGENTRUN_STORE: 'memory' }))).toBe('memory');
    expect(() => chosenStore(readSettings({ AGENTRUN_STORE: 'postgres' }))).toThrow('AGENTRUN_STORE=postgres needs DATABASE_URL');
  });

  it('is the one place the server reads the environment, and holds every variable its code names', () => {
    const files = readdirSync(SRC).filter((f) => f.endsWith('.ts'));
    const reading = (pattern: RegExp) => files.filter((f) => pattern.test(readFileSync(new URL(f, SRC), 'utf8')));
    expect(reading(/process\.env/)).toEqual(['main.ts']);
    expect(reading(/\benv\[/)).toEqual(['read-settings.ts']);
    expect(readFileSync(new URL('main.ts', SRC), 'utf8').match(/process\.env\S*/g)).toEqual(['process.env));']);
    const named = new Set(
      files.flatMap(
        (f) =>
          readFileSync(new URL(f, SRC), 'utf8').match(/\b(AGENTRUN_[A-Z0-9_]*[A-Z0-9]|PORT|HOST|DATABASE_URL|WEBHOOK_BASE_URL)\b/g) ?? [],
      ),
    );
    expect([...named].filter((name) => !names.includes(name))).toEqual([]);
  });

  it('is listed whole by --help, in groups', () => {
    const help = settingsHelp();
    for (const name of names) expect(help).toContain(`  ${name}=<`);
    expect(help).toMatch(/^Usage: npm start/);
    expect(help).toContain('\nStorage:\n  AGENTRUN_STORE=<embedded|postgres|memory>');
  });

  it('is committed as docs/server.md, current (npm run docs:server rewrites it)', () => {
    const committed = readFileSync(new URL('../../../docs/server.md', import.meta.url), 'utf8');
    expect(committed).toBe(settingsMarkdown());
    for (const name of names) expect(committed).toContain(`| \`${name}\` |`);
  });
});
