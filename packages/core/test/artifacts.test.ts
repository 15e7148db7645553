import { createMemoryBlobStore, createMemoryStore } from '@agentrun/store-memory';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArtifactService } from '../src/artifacts/artifact-service.js';
import { type BlobStore, blobKey } from '../src/artifacts/blob-store.js';
import { normalizeContentType, servesInline, sniffImageType } from '../src/artifacts/content-types.js';
import { DEFAULT_ARTIFACT_LIMITS } from '../src/artifacts/limits.js';
import { decideArtifact } from '../src/artifacts/report.js';
import { createDownloadSigner, downloadKey } from '../src/artifacts/signed-url.js';
import { makeRun } from '../src/testing/fixtures.js';
import { defaultHmac } from '../src/verify/crypto.js';

const NOW = Date.UTC(2026, 0, 1);
const signer = createDownloadSigner(defaultHmac, async () => new Uint8Array(32).fill(3));

describe('signed download links (artifacts/signed-url.ts)', () => {
  it('opens its own artifact until it expires, and nothing else', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uuid(), fc.uuid(), fc.integer({ min: 1, max: 10_000_000 }), async (uid, other, ttl) => {
        const { expires, signature } = await signer.sign(uid, NOW + ttl * 1000);
        expect(await signer.check(uid, expires, signature, NOW)).toBeUndefined();
        expect(await signer.check(uid, expires, signature, NOW + ttl * 1000)).toBe('expired');
        if (other !== uid) expect(await signer.check(other, expires, signature, NOW)).toBe('tampered');
        expect(await signer.check(uid, String(Number(expires) + 1), signature, NOW)).toBe('tampered');
      }),
      { numRuns: 100 },
    );
  });

  it('refuses any other signature, whatever its text', async () => {
    const uid = '0b9e6a51-7d1c-4c8e-9d7a-1f2e3d4c5b6a';
    const { expires, signature } = await signer.sign(uid, NOW + 60_000);
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 100 }), async (presented) => {
        fc.pre(presented !== signature);
        expect(await signer.check(uid, expires, presented, NOW)).toBe('tampered');
      }),
      { numRuns: 300 },
    );
    expect(await signer.check(uid, null, signature, NOW)).toBe('tampered');
    expect(await signer.check(uid, expires, null, NOW)).toBe('tampered');
    expect(await signer.check(uid, '1e9', signature, NOW)).toBe('tampered');
  });

  it('derives its key from the secret key, so processes sharing it agree; a short dedicated key is refused', async () => {
    const secretKey = 'a'.repeat(64);
    const [a, b] = await Promise.all([
      downloadKey(defaultHmac, { secretKey }),
      downloadKey(defaultHmac, { secretKey: [secretKey, 'b'.repeat(64)] }),
    ]);
    expect(a).toEqual(b);
    expect(a).not.toEqual(new Uint8Array(32).fill(0xaa));
    await expect(downloadKey(defaultHmac, { downloadUrlKey: 'short' })).rejects.toThrow(TypeError);
  });
});

describe('deciding on a reported artifact (artifacts/report.ts)', () => {
  it('never throws, whatever it is handed: an artifact or a reason', () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        const decided = decideArtifact(input, 'uid-1', '2026-01-01T00:00:00.000Z', DEFAULT_ARTIFACT_LIMITS);
        expect(typeof decided === 'string' || typeof decided.item === 'object').toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps only http(s) URLs, a plan with content or a URL, and known fields', () => {
    const decide = (input: unknown) => decideArtifact(input, 'u', 't', DEFAULT_ARTIFACT_LIMITS);
    expect(decide({ type: 'PULL_REQUEST', url: 'javascript:alert(1)', branch: 'b' })).toMatch(/http\(s\) URL/);
    expect(decide({ type: 'PULL_REQUEST', url: 'https://x.test/pr/1', branch: '' })).toMatch(/branch/);
    expect(decide({ type: 'PLAN', title: 't' })).toMatch(/content or a url/);
    expect(decide({ type: 'PULL_REQUEST', url: 'https://x.test/pr/1', branch: 'b', extra: 1 })).toMatch(/invalid artifact/);
    expect(decide({ type: 'PLAN', url: 'https://x.test/plan' })).toEqual({
      item: { artifact_type: 'PLAN', created_at: 't', data: { document_uid: 'u', artifact_uid: 'u', url: 'https://x.test/plan' } },
    });
    expect(decide({ type: 'FILE', filepath: 'a/b.bin', content: new Uint8Array(3), content_type: 'not a type' })).toMatchObject({
      item: { data: { filename: 'b.bin', mime_type: 'application/octet-stream', size_bytes: 3 } },
    });
  });
});

describe('content types (artifacts/content-types.ts)', () => {
  it('sniffs the four image types from their bytes and serves only those inline', () => {
    expect(sniffImageType(Uint8Array.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(sniffImageType(new TextEncoder().encode('GIF89a'))).toBe('image/gif');
    expect(sniffImageType(new TextEncoder().encode('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(sniffImageType(new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeUndefined();
    expect(servesInline('image/png')).toBe(true);
    for (const type of ['image/svg+xml', 'text/html', 'application/xhtml+xml', 'text/markdown; charset=utf-8'])
      expect(servesInline(type)).toBe(false);
    expect(normalizeContentType(' Text/Plain; charset=UTF-8 ')).toBe('text/plain; charset=utf-8');
    expect(normalizeContentType('text/html\r\nx-injected: 1')).toBeUndefined();
  });

  it('makes blob keys of safe segments, never . or ..', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (a, b, c) => {
        for (const segment of blobKey(a, b, c).split('/')) {
          expect(segment).toMatch(/^[A-Za-z0-9._-]{1,100}$/);
          expect(['.', '..']).not.toContain(segment);
        }
      }),
    );
  });
});

describe('the run quota (artifacts/artifact-service.ts)', () => {
  it('refuses a report past the quota before uploading a byte', async () => {
    const store = createMemoryStore();
    const inner = createMemoryBlobStore();
    let puts = 0;
    const blobs: BlobStore = {
      ...inner,
      put: (...args) => {
        puts++;
        return inner.put(...args);
      },
    };
    const service = new ArtifactService({
      store,
      blobs,
      signer,
      clock: { now: () => NOW },
      limits: { maxFileBytes: 10, maxRunBytes: 25, maxPerRun: 3 },
      onError: (error) => {
        throw error;
      },
    });
    const run = makeRun();
    await store.runs.create({ run, attachments: [] });
    const file = () => ({ type: 'FILE', filepath: 'f', content: new Uint8Array(10) });
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await service.report({ id: run.id, teamUid: run.teamUid }, file()));
    expect(results.map((r) => r.accepted)).toEqual([true, true, false, false]);
    expect(puts).toBe(2);
    expect(
      await service.report({ id: run.id, teamUid: run.teamUid }, { type: 'PULL_REQUEST', url: 'https://x.test/1', branch: 'b' }),
    ).toMatchObject({
      accepted: true,
    });
    expect(
      await service.report({ id: run.id, teamUid: run.teamUid }, { type: 'PULL_REQUEST', url: 'https://x.test/2', branch: 'b' }),
    ).toMatchObject({
      accepted: false,
      reason: expect.stringMatching(/at most 3/),
    });
  });
});
