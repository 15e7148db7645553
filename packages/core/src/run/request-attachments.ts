import { invalidRequest } from '../errors.js';
import { decodeStandardBase64 } from '../models/base64.js';
import type { RunAgentRequest } from '../models/requests.js';
import type { AttachmentRecord } from './record.js';

/** File extensions of the image types a request may carry; any other type is named `.bin`. */
const IMAGE_EXT: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/gif': 'gif', 'image/webp': 'webp' };

/**
 * The files a run request stores with its run: its `attachments` as named, then its `images` as
 * `image-1.png`, `image-2.jpg`…, each prefixed with `_` until no attachment already has its name
 * (docs/run-api.md).
 */
export function requestAttachments(runId: string, request: Pick<RunAgentRequest, 'attachments' | 'images'>): AttachmentRecord[] {
  const out: AttachmentRecord[] = (request.attachments ?? []).map((a) => ({
    runId,
    fileName: a.file_name,
    mimeType: a.mime_type,
    data: decodeBase64(a.data),
  }));
  const taken = new Set(out.map((a) => a.fileName));
  for (const [i, image] of (request.images ?? []).entries()) {
    let name = `image-${i + 1}.${IMAGE_EXT[image.mime_type] ?? 'bin'}`;
    while (taken.has(name)) name = `_${name}`;
    taken.add(name);
    out.push({ runId, fileName: name, mimeType: image.mime_type, data: decodeBase64(image.data) });
  }
  return out;
}

/** Data the request schema has already checked is canonical base64 (models/base64.ts). */
const decodeBase64 = (data: string): Uint8Array => {
  const bytes = decodeStandardBase64(data);
  if (bytes === undefined) throw invalidRequest('attachment data must be standard base64');
  return bytes;
};
