import type { ArtifactItem } from './model.js';

/** The bytes of a stored artifact: their key in the blob store, type and size. */
export interface ArtifactBlob {
  key: string;
  contentType: string;
  sizeBytes: number;
}

/** An artifact as stores keep it (docs/stores.md, "Artifacts"). */
export interface ArtifactRecord {
  /** A UUID: the RunItem's `artifact_uid` (a plan's `document_uid` too). */
  uid: string;
  runId: string;
  teamUid: string;
  createdAt: string;
  /** What the run's `artifacts` shows. */
  item: ArtifactItem;
  /** The uploaded bytes (a screenshot, a file, a plan's text); `null` for a pull request or a plan by URL. */
  blob: ArtifactBlob | null;
}
