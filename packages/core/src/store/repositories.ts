import type { AuditEventRecord } from '../audit/records.js';
import type { RepositoryRecord } from '../repositories/records.js';

// The team repositories part of the Store port (docs/stores.md, "The shape of the interface";
// docs/repositories.md): the repositories a team's skills resolve against, by name per team. A
// write given an `audit` event stores it with the change, only if it changed something.

export interface RepositoryStore {
  /** Insert; `false` (and nothing written) when the team already has a repository of this name. */
  create(record: RepositoryRecord, audit?: AuditEventRecord): Promise<boolean>;
  get(teamUid: string, name: string): Promise<RepositoryRecord | undefined>;
  /** By name (`COLLATE "C"` order in SQL, code-unit order in memory). */
  list(teamUid: string): Promise<RepositoryRecord[]>;
  /** `false` when there was none. */
  delete(teamUid: string, name: string, audit?: AuditEventRecord): Promise<boolean>;
}
