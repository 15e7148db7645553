import { invalidRequest } from '../errors.js';
import { hasLoneSurrogate } from '../models/text.js';

/**
 * The one rule for query strings, on every route that takes one: parameters in `repeatable`
 * become arrays, every other may appear once, and NUL, an unpaired surrogate (which no store
 * can compare) or bytes that are not UTF-8 is a 400. The route's valibot schema (a strict object)
 * then refuses unknown parameters and malformed values.
 */
export function queryObject(url: URL, repeatable: ReadonlySet<string> = NONE): Record<string, string | string[]> {
  // URLSearchParams turns bytes that are not UTF-8 into U+FFFD without a word; a path with them is
  // a 400 (router.ts), so a query is too, before anything reads the replaced text.
  if (HIGH_BYTE_ESCAPE.test(url.search)) refuseBadUtf8(url.search);
  // No prototype: a parameter named `__proto__` is just an unknown parameter.
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [key, value] of url.searchParams) {
    if (key.includes('\u0000') || value.includes('\u0000')) throw invalidRequest('invalid query: the NUL character is not allowed');
    if (hasLoneSurrogate(key) || hasLoneSurrogate(value)) throw invalidRequest('invalid query: not valid UTF-8 text');
    const seen = out[key];
    if (repeatable.has(key)) out[key] = [...((seen as string[] | undefined) ?? []), value];
    else if (seen !== undefined) throw invalidRequest(`invalid query: ${key} may be given only once`);
    else out[key] = value;
  }
  return out;
}

const NONE: ReadonlySet<string> = new Set();

/** A percent-escape of a byte from 0x80 up: without one, the query is ASCII and so UTF-8. */
const HIGH_BYTE_ESCAPE = /%[89a-f][0-9a-f]/i;

const utf8 = new TextEncoder();

/** Strict UTF-8 that keeps a leading BOM, as the URL standard's decoding of a query does. */
const strictUtf8KeepingBom = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Split `search` as the URL standard's `application/x-www-form-urlencoded` parser does (`&`, then
 * the first `=`) and refuse the first name or value whose percent-decoded bytes are not UTF-8,
 * naming its parameter.
 */
function refuseBadUtf8(search: string): void {
  for (const pair of search.replace(/^\?/, '').split('&')) {
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    const rawValue = eq < 0 ? '' : pair.slice(eq + 1);
    const name = decodeStrict(rawName);
    if (name === undefined) throw invalidRequest('invalid query: a parameter name is not valid UTF-8 (percent-encode UTF-8 bytes)');
    if (decodeStrict(rawValue) === undefined) {
      throw invalidRequest(`invalid query: ${name} is not valid UTF-8 (percent-encode UTF-8 bytes)`);
    }
  }
}

/** Percent-decode to bytes (a `%` without two hex digits stays as it is) and decode them as strict UTF-8. */
function decodeStrict(raw: string): string | undefined {
  const text = raw.replace(/\+/g, ' ');
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const hex = text[i] === '%' ? text.slice(i + 1, i + 3) : '';
    if (/^[0-9a-f]{2}$/i.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else for (const byte of utf8.encode(text[i])) bytes.push(byte);
  }
  try {
    return strictUtf8KeepingBom.decode(new Uint8Array(bytes));
  } catch {
    return undefined;
  }
}
