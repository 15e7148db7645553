import type { Principal } from '../auth/principal.js';

/**
 * The scopes of an API key (docs/operations.md, "API keys"): the one list, imported by the route
 * guard, the CLI and the dashboard. `manage_factory` keeps the name the permission always had.
 */
export const API_KEY_SCOPES = ['read_runs', 'write_runs', 'read_factory', 'manage_factory', 'manage_keys'] as const;

export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** What each scope allows, in a sentence (shown by the CLI's help and the dashboard's form). */
export const API_KEY_SCOPE_DESCRIPTIONS: Record<ApiKeyScope, string> = {
  read_runs: 'read runs, their events, transcripts and files (run API GETs)',
  write_runs: 'start, follow up and cancel runs (run API POSTs)',
  read_factory: 'read factories, secret names, webhooks, deliveries and automations',
  manage_factory: 'change factories, team secrets, webhooks and automations, apply definitions',
  manage_keys: 'create, list and revoke API keys',
};

/**
 * What a principal without `scopes` may do: a key minted before scopes existed, or a principal of
 * the host's own `authenticate`. It keeps the powers it had: the run API and the management reads,
 * and a further scope only when its `permissions` list it (`manage_factory`, `manage_keys`).
 */
const UNSCOPED_DEFAULTS: ReadonlySet<ApiKeyScope> = new Set(['read_runs', 'write_runs', 'read_factory']);

/** The one decider: may this principal do what `scope` guards? */
export function allows(principal: Principal, scope: ApiKeyScope): boolean {
  if (principal.scopes !== undefined) return principal.scopes.includes(scope);
  return UNSCOPED_DEFAULTS.has(scope) || (principal.permissions?.includes(scope) ?? false);
}
