import { AgentRunClient } from '@agentrun/client';
import type { AppConfig } from './config.js';

/**
 * Who is signed in (docs/dashboard.md, "Signing in"): an API key typed into the sign-in form and
 * kept in `sessionStorage` (this tab only, gone when it closes; never in a URL), or one the host's
 * auth hook hands out at `auth/session`, kept in memory only.
 */

const STORAGE_KEY = 'agentrun.dashboard.apiKey';

export const storedKey = (): string | undefined => sessionStorage.getItem(STORAGE_KEY) ?? undefined;

export const storeKey = (apiKey: string): void => sessionStorage.setItem(STORAGE_KEY, apiKey);

export const forgetKey = (): void => sessionStorage.removeItem(STORAGE_KEY);

/** The key the host's auth hook gives this browser, or undefined (then the sign-in form). */
export async function hostKey(config: AppConfig): Promise<string | undefined> {
  if (config.auth !== 'host') return undefined;
  try {
    const response = await fetch(`${config.basePath}/auth/session`, {
      headers: { accept: 'application/json' },
      credentials: 'same-origin',
    });
    if (!response.ok) return undefined;
    const body = (await response.json()) as { api_key?: unknown };
    return typeof body.api_key === 'string' && body.api_key !== '' ? body.api_key : undefined;
  } catch {
    return undefined;
  }
}

export const clientFor = (config: AppConfig, apiKey: string): AgentRunClient =>
  new AgentRunClient({ apiKey, baseURL: config.apiBase, maxRetries: 1 });
