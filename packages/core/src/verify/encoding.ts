/**
 * Strict, non-throwing decoders for the text forms signatures travel in. Each answers `undefined`
 * on malformed input instead of throwing, so a verifier can turn any header into a result.
 */

const encoder = new TextEncoder();

export const utf8 = (text: string): Uint8Array => encoder.encode(text);

/** `prefix` as UTF-8 followed by the exact body bytes: the body is never decoded and re-encoded. */
export const prefixed = (prefix: string, body: Uint8Array): Uint8Array => {
  const head = utf8(prefix);
  const out = new Uint8Array(head.length + body.length);
  out.set(head, 0);
  out.set(body, head.length);
  return out;
};

const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** Hex (either case) to bytes; `undefined` for odd lengths or non-hex characters. */
export const decodeHex = (text: string): Uint8Array | undefined => {
  if (!HEX.test(text)) return undefined;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
};

// Standard alphabet with optional padding; atob alone would also skip embedded whitespace.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

/** Standard base64 (padding optional) to bytes; `undefined` when malformed. */
export const decodeBase64 = (text: string): Uint8Array | undefined => {
  if (!BASE64.test(text)) return undefined;
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
};

/**
 * A header that may carry several values. A repeated header reaches us joined by `", "` (the Fetch
 * `Headers` rule), so splitting on commas lets a sender, or a proxy that duplicated the header,
 * list several signatures; any one that matches is enough.
 */
export const listValues = (value: string): string[] =>
  value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
