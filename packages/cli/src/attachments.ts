import { basename, extname } from 'node:path';
import { readBytes } from './files.js';

/**
 * `run --attach <file>`: a file as `POST /agent/run` takes it, `{ file_name, mime_type, data }`
 * with the bytes in base64 (core's AttachmentInputSchema: at most 5, 5 MB each, unique names).
 */
export type Attachment = {
  file_name: string;
  mime_type: string;
  data: string;
};

/** By extension; anything else travels as bytes (`application/octet-stream`). */
const MIME_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.pdf': 'application/pdf',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.zip': 'application/zip',
  '.txt': 'text/plain',
  '.log': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.html': 'text/html',
  '.diff': 'text/x-diff',
  '.patch': 'text/x-diff',
};

export function readAttachment(path: string): Attachment {
  const bytes = readBytes(path, 'the attachment');
  return {
    file_name: basename(path),
    mime_type: MIME_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream',
    data: bytes.toString('base64'),
  };
}
