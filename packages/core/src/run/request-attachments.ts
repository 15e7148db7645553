import { base64DecodedLength, decodeCheckedBase64 } from '../models/base64.js';
import { BASE64_CHECKED_ON_DECODE, BASE64_MESSAGE, type RunAgentRequest } from '../models/requests.js';
import { invalidWithErrors } from '../models/validate.js';
import { nextTurn } from '../util/next-turn.js';
import type { AttachmentRecord } from './record.js';

/** File extensions of the image types a request may carry; any other type is named `.bin`. */
const IMAGE_EXT: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/gif': 'gif', 'image/webp': 'webp' };

/**
 * The files a run request stores with its run: its `attachments` as named, then its `images` as
 * `image-1.png`, `image-2.jpg`…, each prefixed with `_` until no attachment already has its name
 * (docs/run-api.md).
 */
export async function requestAttachments(
  runId: string,
  request: Pick<RunAgentRequest, 'attachments' | 'images'>,
): Promise<AttachmentRecord[]> {
  const out: AttachmentRecord[] = [];
  for (const [i, a] of (request.attachments ?? []).entries())
    out.push({ runId, fileName: a.file_name, mimeType: a.mime_type, data: await decodeBase64(a.data, `attachments.${i}.data`) });
  const taken = new Set(out.map((a) => a.fileName));
  for (const [i, image] of (request.images ?? []).entries()) {
    let name = `image-${i + 1}.${IMAGE_EXT[image.mime_type] ?? 'bin'}`;
    while (taken.has(name)) name = `_${name}`;
    taken.add(name);
    out.push({ runId, fileName: name, mimeType: image.mime_type, data: await decodeBase64(image.data, `images.${i}.data`) });
  }
  return out;
}

/**
 * Data the request schema has checked is canonical base64 (models/base64.ts) when it is short;
 * longer data is checked here, after a turn of the event loop, refused at its path with the
 * schema's words, and decoded after another: five files of 5 MiB are ten stretches of 10-20 ms,
 * not one of 100 (docs/run-api.md, "Sizes first").
 */
const decodeBase64 = async (data: string, path: string): Promise<Uint8Array> => {
  const large = data.length > BASE64_CHECKED_ON_DECODE;
  if (large) await nextTurn();
  const size = base64DecodedLength(data);
  if (size === undefined) throw invalidWithErrors([{ path, detail: BASE64_MESSAGE }], 'run request');
  if (large) await nextTurn();
  return decodeCheckedBase64(data, size);
};
