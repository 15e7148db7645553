import { AgentRunError, invalidRequest } from '../errors.js';
import { findUnstorableText } from '../models/text.js';
import { nextTurn } from '../util/next-turn.js';
import { parseInParts, piecedText } from './json-parse-in-parts.js';
import { createSpanTracker } from './json-spans.js';
import { createJsonTextScan } from './json-text-scan.js';
import { type JsonBudget, type JsonCountOver, jsonCountsExceed } from './json-value-count.js';

/**
 * A request may carry its own reader of its body, as the Node bridge's requests do: it resolves
 * to the body's bytes, rejecting with a `payload_too_large` AgentRunError past `limit`, without
 * going through a Web stream (which costs more than the rest of a small request's handling). It
 * answers `undefined` when it cannot, because the body has already become a stream; that stream
 * is read instead. A registered symbol, so that separately bundled copies agree on it.
 */
export const READ_BODY = Symbol.for('agentrun.read-body');
export type BodyReader = (limit: number) => Promise<Uint8Array> | undefined;

/**
 * Read a request body as bytes, stopping at `limit`: a declared `Content-Length` over the limit
 * is refused before reading, and a stream that runs past it is cancelled, so no more than
 * `limit` bytes are ever buffered.
 */
export async function readBodyLimited(request: Request, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > limit) throw tooLarge(limit);
  const own = (request as Request & { [READ_BODY]?: BodyReader })[READ_BODY];
  const read = typeof own === 'function' ? own.call(request, limit) : undefined;
  try {
    return await (read ?? readStream(request.body, limit));
  } catch (error) {
    if (error instanceof AgentRunError) throw error;
    throw invalidRequest('the request body could not be read to its end');
  }
}

async function readStream(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
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
  } finally {
    reader.releaseLock();
  }
  return concatBytes(chunks, size);
}

/** One array of `size` bytes from `chunks` (the only chunk itself when there is one). */
export function concatBytes(chunks: readonly Uint8Array[], size: number): Uint8Array {
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
 * recursive code; so are the counts of values and items when the route's schema bounds them
 * (`budget`, json-value-count.ts), so JSON.parse never builds more than the schema could accept.
 */
export function parseJsonBody(bytes: Uint8Array, budget?: JsonBudget): unknown {
  if (bytes.byteLength === 0) return undefined;
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw invalidRequest('the request body is not valid UTF-8');
  }
  if (text.trim() === '') return undefined;
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) throw tooDeep();
  const over = budget && jsonCountsExceed(text, budget);
  if (over) throw overBudget(over, budget as JsonBudget);
  const value = parseJson(text);
  // No store can keep NUL (PostgreSQL refuses it) or an unpaired surrogate (no UTF-8 form) in
  // text; both can only arrive as `\u` escapes (the bytes are strict UTF-8), so the walk runs only
  // when the text has one.
  if (ESCAPED_NUL.test(text) || SURROGATE_ESCAPE.test(text)) refuseUnstorable(value);
  return value;
}

/**
 * `parseJsonBody`, with the event loop free between slices when the body is larger than
 * `SLICE_BYTES` (docs/run-api.md, "Sizes first"): a 40 MiB body decoded and checked in one go
 * held the loop for a tenth of a second or more. Its bytes are decoded, and the text checked
 * (json-text-scan.ts: the same nesting, counts and escapes, in one pass, noting where the text
 * can be cut), a slice at a time, with a turn of the event loop after each; then parsed a part
 * at a time (json-parse-in-parts.ts) and, when an escape calls for it, walked for text no store
 * keeps, after another turn. The same answers as `parseJsonBody`, in the same order of
 * precedence; only the words saying why a text is not JSON may differ, and a key longer than
 * 128 Ki characters is refused (no schema takes one).
 */
export async function parseJsonBodyInSlices(bytes: Uint8Array, budget?: JsonBudget): Promise<unknown> {
  if (bytes.byteLength <= IN_PARTS_FROM_BYTES) return parseJsonBody(bytes, budget);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const scan = createJsonTextScan(MAX_JSON_DEPTH, budget, createSpanTracker());
  const pieces: string[] = [];
  let blank = true;
  for (let offset = 0; offset < bytes.byteLength; offset += SLICE_BYTES) {
    const piece = decodeSlice(decoder, bytes.subarray(offset, offset + SLICE_BYTES), true);
    scan.feed(piece);
    pieces.push(piece);
    if (blank && piece.trim() !== '') blank = false;
    await nextTurn();
  }
  const last = decodeSlice(decoder, new Uint8Array(0), false);
  scan.feed(last);
  pieces.push(last);
  if (blank && last.trim() === '') return undefined;
  const { tooDeep: deep, over, suspectEscape, spans } = scan.result();
  if (deep) throw tooDeep();
  if (over) throw overBudget(over, budget as JsonBudget);
  if (spans?.unfit) throw invalidRequest(spans.unfit);
  let value: unknown;
  try {
    value = await parseInParts(piecedText(pieces), spans?.roots ?? [], nextTurn);
  } catch (error) {
    throw invalidRequest(`the request body is not valid JSON: ${(error as Error).message}`);
  }
  if (suspectEscape) {
    await nextTurn();
    refuseUnstorable(value);
  }
  return value;
}

/** Bodies larger than this are decoded and checked a slice at a time (`parseJsonBodyInSlices`). */
export const SLICE_BYTES = 256 * 1024;

/** Bodies larger than this are parsed with `parseJsonBodyInSlices`: JSON.parse of 256 KiB of objects of distinct keys takes about 12 ms. */
const IN_PARTS_FROM_BYTES = 256 * 1024;

function decodeSlice(decoder: TextDecoder, bytes: Uint8Array, more: boolean): string {
  try {
    return decoder.decode(bytes, { stream: more });
  } catch {
    throw invalidRequest('the request body is not valid UTF-8');
  }
}

const tooDeep = () => invalidRequest(`the request body nests deeper than ${MAX_JSON_DEPTH} levels`);

function overBudget(over: JsonCountOver, budget: JsonBudget): AgentRunError {
  if (over.count === 'values')
    return invalidRequest(`the request body holds more than ${budget.values} JSON values, more than this request's limits admit`);
  const detail = `more than ${budget.items} items: no array or object in this request may have more`;
  return new AgentRunError('invalid_request', `invalid request body: ${over.path || '(the body)'}: ${detail}`, {
    errors: [{ path: over.path, detail }],
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalidRequest(`the request body is not valid JSON: ${(error as Error).message}`);
  }
}

/** Refused at its path, in `errors` too, as a schema's refusals are. */
function refuseUnstorable(value: unknown): void {
  const found = findUnstorableText(value);
  if (found === undefined) return;
  const at = found.path || '(the body)';
  throw new AgentRunError('invalid_request', `invalid request body: ${at}: ${found.detail}`, {
    errors: [{ path: found.path, detail: found.detail }],
  });
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** `\u0000` preceded by an even number of backslashes (so the escape is real, not `\\u0000` text). */
const ESCAPED_NUL = /(?<!\\)(?:\\\\)*\\u0000/i;

/**
 * Strict UTF-8 (a malformed sequence throws; a leading BOM is dropped). One decoder serves every
 * call: without `{ stream: true }` each decode starts afresh.
 */
export const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Whether brackets outside strings nest deeper than `max`. Linear, no recursion. */
export function jsonDepthExceeds(text: string, max: number): boolean {
  // Nesting needs an opening bracket per level: with `max` or fewer in all, the scan is moot.
  if (countOpeningBrackets(text, max + 1) <= max) return false;
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

/** How many `{` and `[` the text holds, counting no further than `stopAt`. */
function countOpeningBrackets(text: string, stopAt: number): number {
  let count = 0;
  for (const bracket of ['{', '[']) {
    for (let i = text.indexOf(bracket); i !== -1 && count < stopAt; i = text.indexOf(bracket, i + 1)) count++;
  }
  return count;
}
