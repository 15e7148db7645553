import { AgentRunError, notFound } from '../errors.js';
import { appendTranscript } from '../run/transcript.js';
import type { Store } from '../store/store.js';
import { type Clock, isoTime } from '../util/clock.js';
import { newId } from '../util/ids.js';
import { wellFormedJson } from '../util/well-formed-text.js';
import { type BlobStore, blobKey, type StoredBlob } from './blob-store.js';
import { servesInline } from './content-types.js';
import { type ArtifactLimits, DOWNLOAD_URL_TTL_MS } from './limits.js';
import type { ArtifactItem, GetArtifactResponse } from './model.js';
import type { ArtifactRecord } from './records.js';
import { type ArtifactReportResult, decideArtifact } from './report.js';
import type { DownloadSigner } from './signed-url.js';

// Artifacts end to end (docs/artifacts.md): a report from a run's executor decided on
// (report.ts), its bytes put in the blob store, the record added to the run; the artifact call
// answered with a signed link; the link's download served.

export interface ArtifactServiceDeps {
  store: Store;
  /** Without one, reports that carry bytes are refused (and say why). */
  blobs?: BlobStore;
  signer: DownloadSigner;
  clock: Clock;
  limits: ArtifactLimits;
  /** Where a failed transcript write goes (the artifact stands: run/transcript.ts). */
  onError: (error: unknown) => void;
}

/** The bytes a signed link opens, and how to serve them. */
export interface ArtifactDownload extends StoredBlob {
  fileName: string;
  inline: boolean;
}

export class ArtifactService {
  constructor(private readonly deps: ArtifactServiceDeps) {}

  /**
   * An artifact a run's agent reported: decided on, uploaded, added to the run, and written to its
   * transcript (an `artifact` event carrying the RunItem entry). A refusal stores nothing.
   */
  async report(run: { id: string; teamUid: string }, input: unknown): Promise<ArtifactReportResult> {
    const { store, blobs, clock, limits } = this.deps;
    const uid = newId();
    const createdAt = isoTime(clock.now());
    const decided = decideArtifact(input, uid, createdAt, limits);
    if (typeof decided === 'string') return { accepted: false, reason: decided };
    // The agent's text, made what every store can keep (NUL and lone surrogates become U+FFFD).
    const item = wellFormedJson(decided.item).value as ArtifactItem;
    // Past the quota already: refused before any byte is uploaded (`add` below still decides).
    const held = await store.artifacts.usage(run.id);
    const size = decided.upload?.bytes.byteLength ?? 0;
    if (held.count + 1 > limits.maxPerRun || held.bytes + size > limits.maxRunBytes)
      return { accepted: false, reason: quotaReason(limits) };
    let blob: ArtifactRecord['blob'] = null;
    if (decided.upload) {
      if (!blobs) return { accepted: false, reason: 'this server keeps no uploaded artifacts (no blob store configured)' };
      blob = {
        key: blobKey(run.teamUid, run.id, uid),
        contentType: decided.upload.contentType,
        sizeBytes: decided.upload.bytes.byteLength,
      };
      await blobs.put(blob.key, decided.upload.bytes, blob.contentType);
    }
    const record: ArtifactRecord = { uid, runId: run.id, teamUid: run.teamUid, createdAt, item, blob };
    let added: Awaited<ReturnType<Store['artifacts']['add']>>;
    try {
      added = await store.artifacts.add(record, { maxCount: limits.maxPerRun, maxBytes: limits.maxRunBytes });
    } catch (error) {
      if (blob) await blobs?.delete(blob.key).catch(() => undefined);
      throw error;
    }
    if (added !== 'added') {
      if (blob) await blobs?.delete(blob.key);
      return { accepted: false, reason: added === 'limit' ? quotaReason(limits) : 'the run is gone' };
    }
    await appendTranscript(store, this.deps.onError, run.id, [{ at: createdAt, type: 'artifact', data: item }]);
    return { accepted: true, artifact_uid: uid };
  }

  /** `GET /agent/artifacts/{artifactUid}`: one of the team's artifacts, its bytes behind a signed link under `base`. */
  async get(teamUid: string, uid: string, base: string): Promise<GetArtifactResponse> {
    const record = await this.deps.store.artifacts.get(uid, teamUid);
    if (!record) throw notFound(`artifact ${uid} not found`);
    const { item } = record;
    const link = record.blob ? await this.link(uid, base, record.blob.contentType) : undefined;
    switch (item.artifact_type) {
      case 'PULL_REQUEST':
        return { artifact_type: 'PULL_REQUEST', artifact_uid: uid, created_at: item.created_at, data: item.data };
      case 'PLAN':
        return { artifact_type: 'PLAN', artifact_uid: uid, created_at: item.created_at, data: { ...item.data, ...link } };
      case 'SCREENSHOT': {
        const { artifact_uid: _, mime_type: __, ...rest } = item.data;
        return { artifact_type: 'SCREENSHOT', artifact_uid: uid, created_at: item.created_at, data: { ...rest, ...requireLink(link) } };
      }
      case 'FILE': {
        const { artifact_uid: _, mime_type: __, ...rest } = item.data;
        return { artifact_type: 'FILE', artifact_uid: uid, created_at: item.created_at, data: { ...rest, ...requireLink(link) } };
      }
    }
  }

  /** The bytes behind a signed link: 403 for a link tampered with or expired, 404 when gone. */
  async download(uid: string, expires: string | null, signature: string | null): Promise<ArtifactDownload> {
    const refusal = await this.deps.signer.check(uid, expires, signature, this.deps.clock.now());
    if (refusal === 'tampered') throw new AgentRunError('forbidden', 'this download link is not valid');
    if (refusal === 'expired') throw new AgentRunError('forbidden', 'this download link expired; ask for the artifact again for a new one');
    const record = await this.deps.store.artifacts.get(uid, undefined);
    const blob = record?.blob ? await this.deps.blobs?.get(record.blob.key) : undefined;
    if (!record?.blob || !blob) throw notFound(`artifact ${uid} has no stored content`);
    const fileName = record.item.artifact_type === 'FILE' ? record.item.data.filename : `${uid}${extensionOf(record.blob.contentType)}`;
    return { bytes: blob.bytes, contentType: record.blob.contentType, fileName, inline: servesInline(record.blob.contentType) };
  }

  private async link(uid: string, base: string, contentType: string) {
    const expiresAtMs = this.deps.clock.now() + DOWNLOAD_URL_TTL_MS;
    const { expires, signature } = await this.deps.signer.sign(uid, expiresAtMs);
    const download_url = `${base}/api/v1/artifacts/${encodeURIComponent(uid)}/download?expires=${expires}&signature=${signature}`;
    return { content_type: contentType, download_url, expires_at: isoTime(Number(expires) * 1000) };
  }
}

const quotaReason = (limits: ArtifactLimits) =>
  `the run holds its most artifacts (at most ${limits.maxPerRun}, ${limits.maxRunBytes} bytes uploaded in all)`;

const requireLink = <T>(link: T | undefined): T => {
  if (link === undefined) throw new Error('a screenshot or file artifact without stored bytes');
  return link;
};

const EXTENSIONS: Record<string, string> = {
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/gif': '.gif',
  'image/webp': '.webp',
  'text/markdown; charset=utf-8': '.md',
};
const extensionOf = (contentType: string) => EXTENSIONS[contentType] ?? '';
