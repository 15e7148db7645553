import type { AuditEventRecord } from '../audit/records.js';
import type { AgentIdentityRecord } from '../identities/records.js';

// The agent identities part of the Store port (docs/stores.md; docs/run-api.md, "Agent
// identities"). A change takes its audit event and commits it with itself.

export interface AgentIdentityStore {
  get(teamUid: string, uid: string): Promise<AgentIdentityRecord | undefined>;
  /** The team's identities, oldest first (then by uid). */
  list(teamUid: string): Promise<AgentIdentityRecord[]>;
  /** Create, or replace by `uid` (keeping `createdAt`). */
  put(record: AgentIdentityRecord, audit?: AuditEventRecord): Promise<void>;
  /** Whether it was there; the event is stored only if it was. */
  delete(teamUid: string, uid: string, audit?: AuditEventRecord): Promise<boolean>;
}
