/** Identifiers and random tokens from the Web Crypto API (global in Node 20, Deno, Bun, workers). */

export const newId = (): string => globalThis.crypto.randomUUID();

/** `n` random bytes as unpadded base64url: URL-safe, fit for tokens and API keys. */
export const randomToken = (bytes = 32): string => {
  const buf = new Uint8Array(bytes);
  globalThis.crypto.getRandomValues(buf);
  return base64UrlEncode(buf);
};

export const base64UrlEncode = (bytes: Uint8Array): string => {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
};

export const base64UrlDecode = (text: string): Uint8Array | undefined => {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  const b64 = text.replaceAll('-', '+').replaceAll('_', '/');
  try {
    return Uint8Array.from(atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
};
