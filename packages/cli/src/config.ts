import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { InvalidInputError } from './errors.js';
import { describeIssues } from './issues.js';

/**
 * Where the client connects and with which key (docs/cli.md, "Configuration"): the environment
 * (`AGENTRUN_API_KEY`, `AGENTRUN_BASE_URL`) wins field by field over a profile of the config
 * file; the base URL defaults to a local reference server. The key is never printed.
 */
export interface Connection {
  apiKey: string;
  baseUrl: string;
}

export const DEFAULT_BASE_URL = 'http://localhost:8080';

const ProfileSchema = v.strictObject({
  apiKey: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
  baseUrl: v.optional(v.pipe(v.string(), v.url('must be a URL such as https://agents.example.com'))),
});

const ConfigFileSchema = v.object({ profiles: v.record(v.string(), ProfileSchema) });

type Profile = v.InferOutput<typeof ProfileSchema>;
type Env = Readonly<Record<string, string | undefined>>;

/**
 * `$AGENTRUN_CONFIG`, else `$XDG_CONFIG_HOME/agentrun/config.json`, else
 * `~/.config/agentrun/config.json`. Home is the `HOME` of the environment the command line was
 * given (runCli's, not necessarily the process's); `os.homedir()` only where it has none (Windows).
 */
export const configPath = (env: Env): string =>
  env.AGENTRUN_CONFIG || join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'agentrun', 'config.json');

/**
 * The connection for this invocation. The config file is read only when the environment leaves a
 * field open or a profile is named (`--profile`, `AGENTRUN_PROFILE`), so a CI job with both
 * variables set never depends on a file.
 */
export function resolveConnection(env: Env, profileFlag: string | undefined): Connection {
  const named = profileFlag ?? (env.AGENTRUN_PROFILE || undefined);
  const envKey = env.AGENTRUN_API_KEY || undefined;
  const envUrl = env.AGENTRUN_BASE_URL || undefined;
  const profile = named !== undefined || envKey === undefined || envUrl === undefined ? readProfile(env, named) : {};
  const apiKey = envKey ?? profile.apiKey;
  if (apiKey === undefined) {
    throw new InvalidInputError(
      `no API key: set AGENTRUN_API_KEY, or an apiKey in the "${named ?? 'default'}" profile of ${configPath(env)} (docs/cli.md, "Configuration")`,
    );
  }
  return { apiKey, baseUrl: normaliseBaseUrl(envUrl ?? profile.baseUrl ?? DEFAULT_BASE_URL) };
}

/** The named profile (an error when it or the file is missing), or `default` when there is one. */
function readProfile(env: Env, named: string | undefined): Profile {
  const path = configPath(env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && named === undefined) return {};
    throw new InvalidInputError(`cannot read the config file ${path}: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(`the config file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = v.safeParse(ConfigFileSchema, data);
  if (!parsed.success) throw new InvalidInputError(`the config file ${path} is invalid: ${describeIssues(parsed.issues)}`);
  const name = named ?? 'default';
  const profile = Object.hasOwn(parsed.output.profiles, name) ? parsed.output.profiles[name] : undefined;
  if (profile === undefined && named !== undefined) {
    const known = Object.keys(parsed.output.profiles);
    throw new InvalidInputError(`no profile "${name}" in ${path}${known.length > 0 ? ` (it has ${known.join(', ')})` : ''}`);
  }
  return profile ?? {};
}

/**
 * Where agentrun is mounted: the client adds `/api/v1/…` itself, so a URL written for the
 * published client (ending in `/api/v1`) is taken back to the mount.
 */
function normaliseBaseUrl(url: string): string {
  if (!URL.canParse(url)) throw new InvalidInputError(`the base URL ${JSON.stringify(url)} is not a URL`);
  return url.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
}
