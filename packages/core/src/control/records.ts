import type { AmbientAgentConfig } from '../models/config.js';

/** A factory: owns webhooks and automations; runs dispatched to its foreman are its runs. */
export interface FactoryRecord {
  uid: string;
  teamUid: string;
  name: string;
  foremanAgentIdentityUid: string | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * A team secret. `ciphertext` is the value sealed by the team's `SecretCipher` (AES-256-GCM): stores
 * only ever hold ciphertext, and no API returns a value after it was created.
 */
export interface SecretRecord {
  teamUid: string;
  name: string;
  ciphertext: string;
  createdAt: string;
  updatedAt: string;
}

export const AUTH_MODES = ['token', 'url_token', 'signature'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

export interface WebhookRecord {
  uid: string;
  teamUid: string;
  factoryUid: string;
  name: string;
  authMode: AuthMode;
  signatureScheme: string | null;
  /** The team secret holding this webhook's credential or signing secret. */
  secretName: string;
  deliveryIdHeader: string | null;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  /** Set on delete: senders get 404, automations that select it stay but stop firing. */
  deletedAt: string | null;
}

export interface WebhookTrigger {
  provider: 'webhook';
  event: 'received';
  filter: { webhook_ids: string[]; payload?: Record<string, unknown> };
}

export interface AutomationRecord {
  id: string;
  teamUid: string;
  factoryUid: string;
  name: string;
  prompt: string;
  enabled: boolean;
  config: AmbientAgentConfig | null;
  triggers: WebhookTrigger[];
  createdAt: string;
  updatedAt: string;
}
