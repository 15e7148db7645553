import type { AuditEventRecord } from '../audit/records.js';
import type { AutomationRecord, SecretRecord, WebhookRecord } from '../control/records.js';
import type { DefinitionSetRecord } from '../definitions/records.js';
import type { EnvironmentRecord } from '../environments/records.js';
import type { ScheduleRecord } from '../schedules/records.js';

// The definitions part of the Store port (docs/stores.md, "The shape of the interface"): what the
// last apply of a factory's definition files left, and the one write that applies the next.

/**
 * Everything one apply writes (docs/definitions.md, "Two applies at once"): written whole or
 * not at all, and only if the factory's set is still at `expectedVersion`.
 */
export interface DefinitionWrite {
  /** The factory's set after this write; its `version` is `expectedVersion + 1`. */
  set: DefinitionSetRecord;
  /** The version the write was planned on; 0: the factory had no set. */
  expectedVersion: number;
  /** Secrets to create or replace (a replace keeps `createdAt`), then names to delete. */
  putSecrets: readonly SecretRecord[];
  deleteSecrets: readonly string[];
  /** Webhooks created or replaced whole, by `uid` (a delete is a replace with `deletedAt`). */
  putWebhooks: readonly WebhookRecord[];
  /** Automations created or replaced whole, by `id` (a replace keeps `createdAt`), then ids to delete. */
  putAutomations: readonly AutomationRecord[];
  deleteAutomations: readonly string[];
  /**
   * Environments created or replaced whole, by `id` (a replace keeps `createdAt`), then ids to
   * delete (docs/repositories.md, "Environment files"). A name another environment of the team has
   * refuses the write as `stale`: the apply plans again on what is there now.
   */
  putEnvironments?: readonly EnvironmentRecord[];
  deleteEnvironments?: readonly string[];
  /** The factory's file-defined schedules created or replaced whole, by `id`, then ids to delete (docs/schedules.md). */
  putSchedules?: readonly ScheduleRecord[];
  deleteSchedules?: readonly string[];
  /** Live webhooks the factory may have after the write. */
  maxWebhooksPerFactory: number;
  /** Stored with the write, only if it applies (docs/operations.md, "Audit"). */
  audit?: AuditEventRecord;
}

/**
 * What a definitions write is planned on (docs/definitions.md, "Two applies at once"): the
 * factory's set with its live webhooks and its automations, all as of one moment.
 */
export interface DefinitionSnapshot {
  set: DefinitionSetRecord | undefined;
  /** Live ones only (`deletedAt` null), as `webhooks.list` answers. */
  webhooks: WebhookRecord[];
  /** As `automations.list` answers. */
  automations: AutomationRecord[];
}

export type DefinitionWriteResult = { applied: true } | { applied: false; reason: 'stale' | 'limit' };

export interface DefinitionStore {
  /** The factory's set, or `undefined` when no definitions were ever applied to it. */
  get(teamUid: string, factoryUid: string): Promise<DefinitionSetRecord | undefined>;
  /**
   * The set, webhooks and automations of the factory read at one moment, so no write is half in
   * it. Read apart, a write committing between the reads shows its webhooks without its set, and a
   * plan made on that refuses its own files as renames or orphans the webhooks it cannot see.
   */
  snapshot(teamUid: string, factoryUid: string): Promise<DefinitionSnapshot>;
  /**
   * In one transaction: refused as `stale` (nothing written) unless the factory's set is at
   * `expectedVersion`, as `limit` (nothing written) if the factory would have more live webhooks
   * than allowed; otherwise every part of the write. Two concurrent writes planned on one version:
   * one applies, the other is `stale`.
   */
  write(change: DefinitionWrite): Promise<DefinitionWriteResult>;
}
