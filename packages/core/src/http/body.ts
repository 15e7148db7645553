import { AgentRunError, invalidRequest } from '../errors.js';

/**
 * Read a request body as bytes, stopping at `limit`: a declared `Content-Length` over the limit
 * is refused before reading, and a stream that runs past it is cancelled, so no more than
 * `limit` bytes are ever buffered.
 */
export async function readBodyLimited(request: Request, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > limit) throw tooLarge(limit);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        throw tooLarge(limit);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof AgentRunError) throw error;
    throw invalidRequest('the request body could not be read to its end');
  } finally {
    reader.releaseLock();
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

const tooLarge = (limit: number) => new AgentRunError('payload_too_large', `the request body is larger than ${limit} bytes`);

/** Nesting deeper than this is refused before parsing; no legitimate request comes close. */
export const MAX_JSON_DEPTH = 64;

/**
 * Decode strict UTF-8 and parse JSON; `undefined` for an empty body. Errors are 400s that say
 * what is wrong. Depth is checked on the text first, so pathological nesting never reaches any
 * recursive code.
 */
export function parseJsonBody(bytes: Uint8Array): unknown {
  if (bytes.byteLength === 0) return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw invalidRequest('the request body is not valid UTF-8');
  }
  if (text.trim() === '') return undefined;
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) throw invalidRequest(`the request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  // No store can keep NUL in text (PostgreSQL refuses it); refuse it here, where the caller can fix it.
  if (ESCAPED_NUL.test(text)) throw invalidRequest('strings in the request body must not contain the NUL character (\\u0000)');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalidRequest(`the request body is not valid JSON: ${(error as Error).message}`);
  }
}

/** `\u0000` preceded by an even number of backslashes (so the escape is real, not `\\u0000` text). */
const ESCAPED_NUL = /(?<!\\)(?:\\\\)*\\u0000/i;

/** Whether brackets outside strings nest deeper than `max`. Linear, no recursion. */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
