import type { AuditEventRecord } from '../audit/records.js';
import type { FactorySourceRecord, SourceApplyRecord } from '../sources/records.js';

// The factory sources part of the Store port (docs/stores.md, "The shape of the interface";
// docs/repositories.md, "Factories from a repository"): each factory's source, and the history of
// the commits applied from it, which is also what makes each commit apply once across processes.

/** A keyset position in a factory's applies: newest first by `startedAt`, then `id`. */
export interface SourceApplyPosition {
  startedAt: string;
  id: string;
}

/**
 * What `claimApply` found: the commit is now this caller's to apply; it has an apply already; an
 * apply started later than this one (so on a fetch at least as new: this commit may be older than
 * what is applied); or another commit of the factory is being applied.
 */
export type SourceClaim = 'claimed' | 'done' | 'superseded' | 'busy';

/** Applies kept per factory: a claim deletes the oldest beyond these. */
export const SOURCE_APPLIES_KEPT = 100;

export interface FactorySourceStore {
  /** Create or replace the factory's source (a replace keeps `createdAt`). */
  put(record: FactorySourceRecord, audit?: AuditEventRecord): Promise<void>;
  get(teamUid: string, factoryUid: string): Promise<FactorySourceRecord | undefined>;
  /** By factory UID alone (UIDs are unique across teams): what a push notification, which carries no team, finds. */
  find(factoryUid: string): Promise<FactorySourceRecord | undefined>;
  /** Delete the source and its applies; `false` when there was none. */
  delete(teamUid: string, factoryUid: string, audit?: AuditEventRecord): Promise<boolean>;
  /** Every team's sources by factory UID (code-unit order), after `afterFactoryUid`: what the poller walks. */
  list(afterFactoryUid: string | undefined, limit: number): Promise<FactorySourceRecord[]>;
  /**
   * Atomically, among the factory's applies that are not `applying` ones started before
   * `staleBefore`: `done` (nothing written) when one is of `apply.commit`; else `superseded`
   * (nothing written) when one started after `apply.startedAt`; else `busy` (nothing written) when
   * one is `applying`; else `claimed`: `apply` is
   * stored (replacing a stale `applying` of the same commit), and the factory's applies beyond the
   * newest {@link SOURCE_APPLIES_KEPT} are deleted. Of two concurrent claims of one factory, at most one is `claimed`.
   */
  claimApply(apply: SourceApplyRecord, staleBefore: string): Promise<SourceClaim>;
  /** Record the outcome of a claimed apply (by `id`), with its audit event; `false` when it is gone (the source was deleted). */
  finishApply(
    apply: Pick<SourceApplyRecord, 'id' | 'status' | 'errors' | 'version' | 'finishedAt'>,
    audit?: AuditEventRecord,
  ): Promise<boolean>;
  /** The factory's applies, newest first (by `startedAt`, then `id`), after the keyset position. */
  listApplies(teamUid: string, factoryUid: string, query: { after?: SourceApplyPosition; limit: number }): Promise<SourceApplyRecord[]>;
}
