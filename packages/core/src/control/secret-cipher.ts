import { AgentRunError, isAgentRunError } from '../errors.js';
import { base64UrlDecode, base64UrlEncode } from '../util/ids.js';

/**
 * Seals team secrets before any store sees them: AES-256-GCM through Web Crypto (Node, Deno, Bun,
 * browsers), a fresh 96-bit IV per value, and the secret's team and name as additional
 * authenticated data, so a ciphertext copied onto another secret does not open.
 *
 * Formats, base64url parts (docs/operations.md, "Rotating the secret key"):
 * - `v2.<key id>.<iv>.<ciphertext and tag>`: what every seal writes; the key id names the key that
 *   sealed it (`secretKeyId` below), so a cipher holding several keys opens it with the right one.
 * - `v1.<iv>.<ciphertext and tag>`: written before key ids; opened by trying each key in order
 *   (the GCM tag refuses every key but the one that sealed it).
 */
export interface SecretCipher {
  seal(plaintext: string, slot: string): Promise<string>;
  open(sealed: string, slot: string): Promise<string>;
  /** Whether `sealed` was sealed by the key that seals now (re-sealing it would change nothing). */
  isCurrent(sealed: string): Promise<boolean>;
  /** The ids of the keys held, the sealing key first (never the keys). */
  keyIds(): Promise<readonly string[]>;
}

/** The slot a secret's ciphertext is bound to. */
export const secretSlot = (teamUid: string, name: string) => `${encodeURIComponent(teamUid)}/${encodeURIComponent(name)}`;

/** One key, or several: the first seals, every one opens (docs/embedding.md, `secretKey`). */
export type SecretKeyOption = Uint8Array | string | readonly (Uint8Array | string)[];

interface HeldKey {
  id: string;
  key: CryptoKey;
}

/**
 * A cipher from 32-byte keys: raw bytes, or base64/base64url text (44 or 43 characters), or 64
 * hex digits. Generate one with `openssl rand -base64 32`. With a list, the first key seals and
 * every key opens, so a key can be rotated without a moment where a value cannot be read.
 */
export function createSecretCipher(keys: SecretKeyOption): SecretCipher {
  const raws = (typeof keys === 'string' || keys instanceof Uint8Array ? [keys] : [...keys]).map(rawKey);
  if (raws.length === 0) throw new TypeError('secretKey must name at least one key');
  raws.forEach((raw, i) => {
    if (raws.findIndex((other) => sameBytes(other, raw)) !== i) throw new TypeError(`secretKey lists the same key twice (key ${i + 1})`);
  });
  const held: Promise<HeldKey[]> = Promise.all(raws.map(async (raw) => ({ id: await secretKeyId(raw), key: await importAes(raw) })));
  const encoder = new TextEncoder();

  const decrypt = async (key: CryptoKey, iv: Uint8Array, body: Uint8Array, slot: string) =>
    new TextDecoder().decode(
      await globalThis.crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: iv as Uint8Array<ArrayBuffer>, additionalData: encoder.encode(slot) },
        key,
        body as Uint8Array<ArrayBuffer>,
      ),
    );

  return {
    async seal(plaintext, slot) {
      const [current] = await held;
      if (!current) throw new TypeError('secretKey must name at least one key');
      const iv = globalThis.crypto.getRandomValues(new Uint8Array(12));
      const sealed = await globalThis.crypto.subtle.encrypt(
        { name: 'AES-GCM', iv, additionalData: encoder.encode(slot) },
        current.key,
        encoder.encode(plaintext),
      );
      return `v2.${current.id}.${base64UrlEncode(iv)}.${base64UrlEncode(new Uint8Array(sealed))}`;
    },
    async open(sealed, slot) {
      const parsed = parseSealed(sealed);
      const keys = await held;
      if (parsed.keyId === undefined) {
        // The old format: whichever key sealed it opens it; the others fail on the GCM tag.
        for (const { key } of keys) {
          try {
            return await decrypt(key, parsed.iv, parsed.body, slot);
          } catch {}
        }
        throw new Error('a sealed secret (v1, no key id) opens with none of the secret keys this process holds');
      }
      const match = keys.find((k) => k.id === parsed.keyId);
      if (!match) {
        throw new Error(
          `a sealed secret names key ${parsed.keyId}, which this process does not hold (it holds ${keys.map((k) => k.id).join(', ')}): add that key to secretKey (docs/operations.md, "Rotating the secret key")`,
        );
      }
      return decrypt(match.key, parsed.iv, parsed.body, slot);
    },
    async isCurrent(sealed) {
      const [current] = await held;
      return sealed.startsWith(`v2.${current?.id}.`);
    },
    async keyIds() {
      return (await held).map((k) => k.id);
    },
  };
}

interface ParsedSealed {
  keyId: string | undefined;
  iv: Uint8Array;
  body: Uint8Array;
}

function parseSealed(sealed: string): ParsedSealed {
  const parts = sealed.split('.');
  const [version] = parts;
  const [keyId, iv, body] = version === 'v2' && parts.length === 4 ? parts.slice(1) : [undefined, ...parts.slice(1)];
  const ivBytes = iv === undefined ? undefined : base64UrlDecode(iv);
  const bodyBytes = body === undefined ? undefined : base64UrlDecode(body);
  const shapeOk =
    version === 'v2' ? parts.length === 4 && keyId !== undefined && /^[\w-]{1,32}$/.test(keyId) : version === 'v1' && parts.length === 3;
  if (!shapeOk || !ivBytes || ivBytes.byteLength !== 12 || !bodyBytes) throw new Error('not a sealed secret');
  return { keyId: version === 'v2' ? keyId : undefined, iv: ivBytes, body: bodyBytes };
}

/**
 * A key's id: the first 6 bytes of HMAC-SHA-256(key, "agentrun secret key id"), base64url (8
 * characters). A keyed hash, so the id says nothing about the key, and derived, so it needs no
 * configuration: every process holding the key computes the same id.
 */
async function secretKeyId(raw: Uint8Array): Promise<string> {
  const hmacKey = await globalThis.crypto.subtle.importKey(
    'raw',
    raw as Uint8Array<ArrayBuffer>,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = await globalThis.crypto.subtle.sign('HMAC', hmacKey, new TextEncoder().encode('agentrun secret key id'));
  return base64UrlEncode(new Uint8Array(mac).slice(0, 6));
}

const importAes = (raw: Uint8Array) =>
  globalThis.crypto.subtle.importKey('raw', raw as Uint8Array<ArrayBuffer>, 'AES-GCM', false, ['encrypt', 'decrypt']);

export function rawKey(key: Uint8Array | string): Uint8Array {
  const raw = typeof key === 'string' ? decodeKey(key) : key;
  if (raw?.byteLength !== 32) {
    throw new TypeError('secretKey must be 32 bytes: base64 (openssl rand -base64 32), 64 hex digits, or a Uint8Array');
  }
  return raw;
}

/** Only used to refuse a key listed twice at start-up, never on a request. */
const sameBytes = (a: Uint8Array, b: Uint8Array) => a.byteLength === b.byteLength && a.every((x, i) => x === b[i]);

function decodeKey(text: string): Uint8Array | undefined {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Uint8Array.from(t.match(/../g) ?? [], (h) => Number.parseInt(h, 16));
  return base64UrlDecode(t.replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, ''));
}

/**
 * The cipher as the management API uses it: a value no held key opens (a process still without the
 * key that sealed it, mid-rotation) is a 503 whose detail names the missing key id, not a 500.
 */
export const answeringCipher = (cipher: SecretCipher): SecretCipher => ({
  ...cipher,
  open: (sealed, slot) =>
    cipher.open(sealed, slot).catch((error: unknown) => {
      if (isAgentRunError(error)) throw error;
      throw new AgentRunError('unavailable', error instanceof Error ? error.message : 'a sealed secret could not be opened');
    }),
});

/** Stands in when the host configured no key: every use is a clear 503. */
export const missingCipher: SecretCipher = {
  seal: () => Promise.reject(noKey()),
  open: () => Promise.reject(noKey()),
  isCurrent: () => Promise.reject(noKey()),
  keyIds: () => Promise.resolve([]),
};

const noKey = () =>
  new AgentRunError(
    'unavailable',
    'team secrets are disabled: this server has no secret key (pass secretKey to createAgentRunHandler, or set AGENTRUN_SECRET_KEY for the reference server)',
  );
