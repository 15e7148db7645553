import * as v from 'valibot';
import { SETTINGS, type Settings } from './settings.js';

/** A setting that is wrong: the process ends with exit code 2 and this one line (main.ts). */
export class SettingError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(message);
    this.name = 'SettingError';
  }
}

/**
 * The settings from an environment (main.ts passes the process's): each variable read by its row,
 * blank as unset. Throws a SettingError naming the first variable that is wrong; a secret's value
 * is never in the message.
 */
export function readSettings(env: Readonly<Record<string, string | undefined>>): Settings {
  const settings: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(SETTINGS)) {
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') {
      settings[name] = setting.default;
      continue;
    }
    const parsed = v.safeParse(setting.kind.schema, raw);
    if (!parsed.success) {
      const got = setting.kind.secret ? `a value of ${raw.length} characters` : JSON.stringify(raw);
      throw new SettingError(name, `${name} must be ${setting.kind.expected}, got ${got}`);
    }
    settings[name] = parsed.output;
  }
  return settings as Settings;
}

/** The store the settings choose (docs/server.md, "Storage"): one decider for main.ts and the banner. */
export function chosenStore(settings: Pick<Settings, 'AGENTRUN_STORE' | 'DATABASE_URL'>): 'embedded' | 'postgres' | 'memory' {
  const store = settings.AGENTRUN_STORE ?? (settings.DATABASE_URL ? 'postgres' : 'embedded');
  if (store === 'postgres' && !settings.DATABASE_URL)
    throw new SettingError('AGENTRUN_STORE', 'AGENTRUN_STORE=postgres needs DATABASE_URL');
  return store;
}
