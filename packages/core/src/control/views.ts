import { isFileDefined, teamSecretNameOf } from './applied-secret.js';
import type { AutomationRecord, FactoryRecord, SecretRecord, WebhookRecord } from './records.js';

/**
 * Wire shapes of the management API (docs/management-api.md): snake_case, and never a secret value.
 */

export const factoryView = (f: FactoryRecord) => ({
  uid: f.uid,
  name: f.name,
  ...(f.foremanAgentIdentityUid !== null ? { foreman_agent_identity_uid: f.foremanAgentIdentityUid } : {}),
  created_at: f.createdAt,
  updated_at: f.updatedAt,
});

export interface SecretView {
  name: string;
  created_at: string;
  updated_at: string;
}

export const secretView = (s: SecretRecord): SecretView => ({ name: s.name, created_at: s.createdAt, updated_at: s.updatedAt });

export interface WebhookView {
  uid: string;
  name: string;
  auth_mode: WebhookRecord['authMode'];
  signature_scheme?: string;
  secret_name: string;
  delivery_id_header?: string;
  enabled: boolean;
  ingress_url: string;
  /** The file that defines it (docs/definitions.md); absent for a webhook made through the API. */
  definition_file?: string;
  created_at: string;
  updated_at: string;
}

/**
 * A webhook as the API shows it. A URL-token webhook's URL carries its token only in the answer
 * that created or rotated it; everywhere else the token is the placeholder `{token}`.
 */
export function webhookView(w: WebhookRecord, origin: string, token?: string): WebhookView {
  const base = `${origin.replace(/\/+$/, '')}/webhooks/w/${encodeURIComponent(w.uid)}`;
  return {
    uid: w.uid,
    name: w.name,
    auth_mode: w.authMode,
    ...(w.signatureScheme !== null ? { signature_scheme: w.signatureScheme } : {}),
    secret_name: teamSecretNameOf(w),
    ...(w.deliveryIdHeader !== null ? { delivery_id_header: w.deliveryIdHeader } : {}),
    enabled: w.enabled,
    ingress_url: w.authMode === 'url_token' ? `${base}/${token ?? '{token}'}` : base,
    ...(isFileDefined(w) ? { definition_file: `webhooks/${w.name}.yaml` } : {}),
    created_at: w.createdAt,
    updated_at: w.updatedAt,
  };
}

/** An automation as the API shows it; `definitionFile` when a file defines it (automations.ts `definitionFiles`). */
export const automationView = (a: AutomationRecord, definitionFile?: string) => ({
  id: a.id,
  name: a.name,
  prompt: a.prompt,
  enabled: a.enabled,
  ...(a.config !== null ? { config: a.config } : {}),
  triggers: a.triggers,
  ...(definitionFile !== undefined ? { definition_file: definitionFile } : {}),
  created_at: a.createdAt,
  updated_at: a.updatedAt,
});
