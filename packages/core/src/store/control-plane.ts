import type { AuditEventRecord } from '../audit/records.js';
import type { AutomationRecord, FactoryRecord, SecretRecord, WebhookRecord } from '../control/records.js';

// The control-plane part of the Store port (docs/stores.md, "The shape of the interface"):
// factories, team secrets, webhooks and automations, what the management API reads and writes.
// A write given an `audit` event stores it in the same transaction, and only if the write changed
// something (docs/operations.md, "Audit").

/** A factory create: refused, writing nothing, when another factory of the team has its foreman. */
export type CreateFactoryResult = { created: true } | { created: false; reason: 'foreman_taken' };

export interface FactoryStore {
  /**
   * Insert the factory unless its foreman identity is another factory's of the team (at most one
   * per team, checked atomically with the insert: of two racing creates one is refused). What a
   * refusal means to a caller is core's to say (control/factories.ts).
   */
  create(record: FactoryRecord): Promise<CreateFactoryResult>;
  get(teamUid: string, uid: string): Promise<FactoryRecord | undefined>;
  /** Oldest first. */
  list(teamUid: string): Promise<FactoryRecord[]>;
  /** The factory whose foreman has this agent identity, if any. */
  findByForeman(teamUid: string, agentIdentityUid: string): Promise<FactoryRecord | undefined>;
}

export interface SecretStore {
  /** Create or replace the value of a secret; `created` tells which. */
  put(record: SecretRecord, audit?: AuditEventRecord): Promise<{ created: boolean }>;
  get(teamUid: string, name: string): Promise<SecretRecord | undefined>;
  /** By name. */
  list(teamUid: string): Promise<SecretRecord[]>;
  delete(teamUid: string, name: string, audit?: AuditEventRecord): Promise<boolean>;
  /**
   * Every team's secrets after `after`, in (team, name) order, at most `limit`: the re-seal walks
   * the whole table in pages with this (maintenance/reseal-secrets.ts).
   */
  scan(after: SecretPosition | undefined, limit: number): Promise<SecretRecord[]>;
  /**
   * Replace a secret's ciphertext only if it is still `expected` (compare-and-set), keeping
   * `updatedAt` (the value is the same, sealed again); `false` if it changed or is gone.
   */
  reseal(teamUid: string, name: string, expected: string, ciphertext: string): Promise<boolean>;
}

/** Where a walk over every team's secrets stands: the last secret it saw. */
export interface SecretPosition {
  teamUid: string;
  name: string;
}

export interface CreateWebhookInput {
  webhook: WebhookRecord;
  /** A secret generated for this webhook, inserted with it (it must not exist yet). */
  secret?: SecretRecord;
  /** Live (not deleted) webhooks a factory may have; the insert is refused at the limit. */
  maxPerFactory: number;
  /** Stored with the webhook, only if it is created. */
  audit?: AuditEventRecord;
}

export type CreateWebhookResult = { created: true } | { created: false; reason: 'limit' | 'secret_exists' };

export interface WebhookPatch {
  enabled?: boolean;
  deliveryIdHeader?: string | null;
  /** Set by a delete. */
  deletedAt?: string;
}

export interface WebhookStore {
  /** Atomically: check the factory's live webhooks are under the limit, insert the secret and the webhook. */
  create(input: CreateWebhookInput): Promise<CreateWebhookResult>;
  /** One webhook of a factory, deleted ones included. */
  get(teamUid: string, factoryUid: string, uid: string): Promise<WebhookRecord | undefined>;
  /** By UID alone, for the ingress (deleted ones included: the caller decides). */
  getByUid(uid: string): Promise<WebhookRecord | undefined>;
  /** A factory's live webhooks, oldest first. */
  list(teamUid: string, factoryUid: string): Promise<WebhookRecord[]>;
  /** Apply a patch to a live webhook; `undefined` if there is none. `updatedAt` is set to `now`. */
  update(
    teamUid: string,
    factoryUid: string,
    uid: string,
    patch: WebhookPatch,
    now: string,
    audit?: AuditEventRecord,
  ): Promise<WebhookRecord | undefined>;
}

export interface AutomationStore {
  create(record: AutomationRecord, audit?: AuditEventRecord): Promise<void>;
  get(teamUid: string, factoryUid: string, id: string): Promise<AutomationRecord | undefined>;
  /** Oldest first. */
  list(teamUid: string, factoryUid: string): Promise<AutomationRecord[]>;
  /** Replace a stored automation (same id); `false` if there is none. */
  replace(record: AutomationRecord, audit?: AuditEventRecord): Promise<boolean>;
  delete(teamUid: string, factoryUid: string, id: string, audit?: AuditEventRecord): Promise<boolean>;
  /**
   * Enabled automations with a trigger selecting this webhook (the ingress asks this per delivery).
   * A store may answer with frozen (immutable) snapshots rather than copies.
   */
  listForWebhook(webhookUid: string): Promise<AutomationRecord[]>;
}
