import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configPath, resolveConnection } from '../src/config.js';
import { InvalidInputError } from '../src/errors.js';

// Where the command line connects (docs/cli.md, "Configuration"): the environment wins field by
// field over a profile of the config file; every problem with the file is a usage error (exit 2).

const dir = mkdtempSync(join(tmpdir(), 'agentrun-config-'));
const configFile = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};

const profiles = configFile('config.json', {
  profiles: {
    default: { apiKey: 'key-default', baseUrl: 'https://agents.example.com/' },
    staging: { apiKey: 'key-staging', baseUrl: 'https://staging.example.com/api/v1' },
  },
});

describe('resolveConnection', () => {
  it('reads the default profile, or the one named by --profile or AGENTRUN_PROFILE', () => {
    expect(resolveConnection({ AGENTRUN_CONFIG: profiles }, undefined)).toEqual({
      apiKey: 'key-default',
      baseUrl: 'https://agents.example.com',
    });
    // A URL written for the published client (…/api/v1) is taken back to the mount.
    expect(resolveConnection({ AGENTRUN_CONFIG: profiles }, 'staging')).toEqual({
      apiKey: 'key-staging',
      baseUrl: 'https://staging.example.com',
    });
    expect(resolveConnection({ AGENTRUN_CONFIG: profiles, AGENTRUN_PROFILE: 'staging' }, undefined).apiKey).toBe('key-staging');
  });

  it('lets the environment win field by field, and needs no file when it sets both', () => {
    expect(resolveConnection({ AGENTRUN_CONFIG: profiles, AGENTRUN_API_KEY: 'key-env' }, 'staging')).toEqual({
      apiKey: 'key-env',
      baseUrl: 'https://staging.example.com',
    });
    const nowhere = join(dir, 'missing.json');
    expect(resolveConnection({ AGENTRUN_CONFIG: nowhere, AGENTRUN_API_KEY: 'k', AGENTRUN_BASE_URL: 'http://h:1' }, undefined)).toEqual({
      apiKey: 'k',
      baseUrl: 'http://h:1',
    });
    // No file, no URL: the local reference server.
    expect(resolveConnection({ AGENTRUN_CONFIG: nowhere, AGENTRUN_API_KEY: 'k' }, undefined).baseUrl).toBe('http://localhost:8080');
  });

  it('refuses, as usage errors naming the file, a missing key, an unknown profile, bad JSON and a bad field', () => {
    const cases: [Record<string, string>, string | undefined, RegExp][] = [
      [{ AGENTRUN_CONFIG: join(dir, 'missing.json') }, undefined, /no API key: set AGENTRUN_API_KEY/],
      [{ AGENTRUN_CONFIG: join(dir, 'missing.json') }, 'prod', /cannot read the config file .*missing\.json/],
      [{ AGENTRUN_CONFIG: profiles }, 'prod', /no profile "prod" in .*config\.json \(it has default, staging\)/],
      [{ AGENTRUN_CONFIG: configFile('bad.json', '{"profiles":') }, undefined, /bad\.json is not valid JSON/],
      [
        { AGENTRUN_CONFIG: configFile('url.json', { profiles: { default: { apiKey: 'k', baseUrl: 'nope' } } }) },
        undefined,
        /profiles\.default\.baseUrl: must be a URL/,
      ],
      [
        { AGENTRUN_CONFIG: configFile('typo.json', { profiles: { default: { api_key: 'k' } } }) },
        undefined,
        /profiles\.default\.api_key: unknown field/,
      ],
    ];
    for (const [env, profile, message] of cases) {
      expect(() => resolveConnection(env, profile)).toThrow(InvalidInputError);
      expect(() => resolveConnection(env, profile)).toThrow(message);
    }
  });

  it('finds the file at $AGENTRUN_CONFIG, else under $XDG_CONFIG_HOME, else $HOME/.config', () => {
    expect(configPath({ AGENTRUN_CONFIG: '/etc/agentrun.json' })).toBe('/etc/agentrun.json');
    expect(configPath({ XDG_CONFIG_HOME: '/xdg' })).toBe('/xdg/agentrun/config.json');
    // Home is the given environment's HOME, not the process's: runCli may be given another one.
    expect(configPath({ HOME: '/home/someone-else' })).toBe('/home/someone-else/.config/agentrun/config.json');
    expect(configPath({})).toMatch(/\.config\/agentrun\/config\.json$/);
  });
});
