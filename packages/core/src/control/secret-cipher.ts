import { AgentRunError } from '../errors.js';
import { base64UrlDecode, base64UrlEncode } from '../util/ids.js';

/**
 * Seals team secrets before any store sees them: AES-256-GCM through Web Crypto (Node, Deno, Bun,
 * browsers), a fresh 96-bit IV per value, and the secret's team and name as additional
 * authenticated data, so a ciphertext copied onto another secret does not open.
 * Format: `v1.<iv>.<ciphertext and tag>`, base64url.
 */
export interface SecretCipher {
  seal(plaintext: string, slot: string): Promise<string>;
  open(sealed: string, slot: string): Promise<string>;
}

/** The slot a secret's ciphertext is bound to. */
export const secretSlot = (teamUid: string, name: string) => `${encodeURIComponent(teamUid)}/${encodeURIComponent(name)}`;

/**
 * A cipher from a 32-byte key: raw bytes, or base64/base64url text (44 or 43 characters), or 64
 * hex digits. Generate one with `openssl rand -base64 32`.
 */
export function createSecretCipher(key: Uint8Array | string): SecretCipher {
  const raw = typeof key === 'string' ? decodeKey(key) : key;
  if (raw?.byteLength !== 32) {
    throw new TypeError('secretKey must be 32 bytes: base64 (openssl rand -base64 32), 64 hex digits, or a Uint8Array');
  }
  const keyPromise = globalThis.crypto.subtle.importKey('raw', raw as Uint8Array<ArrayBuffer>, 'AES-GCM', false, ['encrypt', 'decrypt']);
  const encoder = new TextEncoder();
  return {
    async seal(plaintext, slot) {
      const iv = globalThis.crypto.getRandomValues(new Uint8Array(12));
      const sealed = await globalThis.crypto.subtle.encrypt(
        { name: 'AES-GCM', iv, additionalData: encoder.encode(slot) },
        await keyPromise,
        encoder.encode(plaintext),
      );
      return `v1.${base64UrlEncode(iv)}.${base64UrlEncode(new Uint8Array(sealed))}`;
    },
    async open(sealed, slot) {
      const [version, iv, body] = sealed.split('.');
      const ivBytes = iv === undefined ? undefined : base64UrlDecode(iv);
      const bodyBytes = body === undefined ? undefined : base64UrlDecode(body);
      if (version !== 'v1' || !ivBytes || !bodyBytes) throw new Error('not a sealed secret');
      const plain = await globalThis.crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: ivBytes as Uint8Array<ArrayBuffer>, additionalData: encoder.encode(slot) },
        await keyPromise,
        bodyBytes as Uint8Array<ArrayBuffer>,
      );
      return new TextDecoder().decode(plain);
    },
  };
}

function decodeKey(text: string): Uint8Array | undefined {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Uint8Array.from(t.match(/../g) ?? [], (h) => Number.parseInt(h, 16));
  return base64UrlDecode(t.replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, ''));
}

/** Stands in when the host configured no key: every use is a clear 503. */
export const missingCipher: SecretCipher = {
  seal: () => Promise.reject(noKey()),
  open: () => Promise.reject(noKey()),
};

const noKey = () =>
  new AgentRunError(
    'unavailable',
    'team secrets are disabled: this server has no secret key (pass secretKey to createAgentRunHandler, or set AGENTRUN_SECRET_KEY for the reference server)',
  );
