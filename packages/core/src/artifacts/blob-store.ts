// Where the bytes of uploaded artifacts live (docs/artifacts.md, "Blob storage"): a port, so core
// reads and writes bytes without knowing the medium. Implementations: `@agentrun/blob-storage`'s
// filesystem store, `@agentrun/store-postgres`'s table, `@agentrun/store-memory`'s map; an
// S3-compatible bucket is the documented extension point (the same three calls).

export interface StoredBlob {
  bytes: Uint8Array;
  contentType: string;
}

export interface BlobStore {
  /**
   * Keep `bytes` under `key` (core's keys are `<team>/<run>/<artifact uid>`, characters
   * `[A-Za-z0-9._-]` and `/`), replacing what was there. Resolves once they are durable.
   */
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** The bytes under `key`, or `undefined` when none. */
  get(key: string): Promise<StoredBlob | undefined>;
  /** Remove what is under `key`; nothing when none. */
  delete(key: string): Promise<void>;
}

/**
 * The key core stores an artifact's bytes under. The artifact's UID (a UUID) makes it unique; the
 * team and run segments only group, so each is cut at 100 characters.
 */
export const blobKey = (teamUid: string, runId: string, uid: string): string => [teamUid, runId, uid].map(safeSegment).join('/');

/** One key segment: characters outside `[A-Za-z0-9._-]` written `_xx`, never `.` or `..`, at most 100 characters. */
const safeSegment = (s: string) => {
  const encoded = encodeURIComponent(s)
    .replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16)}`)
    .replaceAll('%', '_')
    .slice(0, 100);
  return encoded === '.' || encoded === '..' || encoded === '' ? `_${encoded}` : encoded;
};
