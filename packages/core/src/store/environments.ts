import type { AuditEventRecord } from '../audit/records.js';
import type { EnvironmentRecord } from '../environments/records.js';

// The environments part of the Store port (docs/stores.md, "The shape of the interface";
// docs/repositories.md, "Environments"). A change takes its audit event and commits it with itself.

export type EnvironmentPutResult = { ok: true; created: boolean } | { ok: false; reason: 'name_taken' };

export interface EnvironmentStore {
  get(teamUid: string, id: string): Promise<EnvironmentRecord | undefined>;
  /** The team's environments, by name. */
  list(teamUid: string): Promise<EnvironmentRecord[]>;
  /**
   * Create, or replace by `id` (keeping `createdAt`); refused as `name_taken` (nothing written)
   * when another environment of the team has the name.
   */
  put(record: EnvironmentRecord, audit?: AuditEventRecord): Promise<EnvironmentPutResult>;
  /** Whether it was there; the event is stored only if it was. */
  delete(teamUid: string, id: string, audit?: AuditEventRecord): Promise<boolean>;
}
