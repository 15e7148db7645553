import type { ArtifactRecord } from '../artifacts/records.js';

// The artifacts part of the Store port (docs/stores.md, "Artifacts"): what a run's agent reported,
// kept with the run (its RunItem's `artifacts`) and found again by UID. The bytes are the blob
// store's (artifacts/blob-store.ts); a record only names them.

/** What one run may hold, checked in the same atomic step as the insert. */
export interface ArtifactQuota {
  /** Artifacts per run. */
  maxCount: number;
  /** The sum of the uploaded bytes (`blob.sizeBytes`) per run. */
  maxBytes: number;
}

/** `added`; `limit` when the run already holds the quota's count or bytes; `no_run` when the run is gone. */
export type AddArtifactResult = 'added' | 'limit' | 'no_run';

export interface ArtifactStore {
  /**
   * Add an artifact to its run, atomically: appended to the run's `artifacts` (in the order added)
   * and findable by UID, or nothing when the quota would be exceeded or the run does not exist.
   * The run's `updated_at` is left as is.
   */
  add(record: ArtifactRecord, quota: ArtifactQuota): Promise<AddArtifactResult>;
  /**
   * What a run holds: its artifacts and their uploaded bytes (zero for an unknown run). A check
   * before uploading, so an agent past its quota costs no upload; `add` still decides.
   */
  usage(runId: string): Promise<{ count: number; bytes: number }>;
  /** An artifact by UID; with `teamUid`, only when it belongs to a run of that team. */
  get(uid: string, teamUid?: string): Promise<ArtifactRecord | undefined>;
}
