import type { AmbientAgentConfig } from '../models/config.js';
import { DEFAULT_HARNESS_NAME, type HARNESS_AUTH_FIELDS, type HarnessAuthField, type HarnessType } from './harness-types.js';

/** Where a run's config names a team secret for its harness's API key: the field, as a client wrote it. */
export type AuthSecretSource = 'harness.auth_secret_name' | `harness_auth_secrets.${HarnessAuthField}`;

/** Every team secret a run's config names for harness authentication, by where it is named. */
export function authSecretNames(config: AmbientAgentConfig): { source: AuthSecretSource; name: string }[] {
  const out: { source: AuthSecretSource; name: string }[] = [];
  if (config.harness?.auth_secret_name !== undefined)
    out.push({ source: 'harness.auth_secret_name', name: config.harness.auth_secret_name });
  for (const field of ['claude_auth_secret_name', 'codex_auth_secret_name'] as const) {
    const name = config.harness_auth_secrets?.[field];
    if (name !== undefined) out.push({ source: `harness_auth_secrets.${field}`, name });
  }
  return out;
}

/**
 * Which named secret the harness `type` reads its key from (docs/harnesses.md, "Authentication"):
 * `harness.auth_secret_name` for the run's own harness, else the `harness_auth_secrets` member of
 * that harness, else none.
 */
export function authSecretSourceFor(
  config: AmbientAgentConfig,
  type: HarnessType,
  fields: typeof HARNESS_AUTH_FIELDS,
): AuthSecretSource | undefined {
  if (config.harness?.auth_secret_name !== undefined) return 'harness.auth_secret_name';
  for (const [field, harness] of Object.entries(fields) as [HarnessAuthField, HarnessType][]) {
    if (harness === type && config.harness_auth_secrets?.[field] !== undefined) return `harness_auth_secrets.${field}`;
  }
  return undefined;
}

/** The harness a run names, `undefined` for the server's default (no `type`, or `oz`). */
export function namedHarness(config: AmbientAgentConfig): string | undefined {
  const type = config.harness?.type;
  return type === undefined || type === DEFAULT_HARNESS_NAME ? undefined : type;
}
