import { callbackSecretSlot } from '../callbacks/records.js';
import type { SecretRecord } from '../control/records.js';
import { type SecretCipher, secretSlot } from '../control/secret-cipher.js';
import type { CallbackStore } from '../store/callbacks.js';
import type { SecretPosition, SecretStore } from '../store/control-plane.js';

/**
 * Re-seals every team secret (webhook secrets included: they are team secrets) with the key that
 * seals now, after a new key was put first in `secretKey` (docs/operations.md, "Rotating the secret
 * key"). It walks the secrets in pages; a secret already sealed by the current key is counted and
 * left alone without decrypting it, so a run that stopped is simply started again. Each write is a
 * compare-and-set on the sealed value it read, so several processes may run it at once, and a
 * secret written meanwhile (sealed by its writer) is never overwritten with the old value.
 */
export interface ResealOptions {
  /** Secrets read per page. Default 100. */
  batchSize?: number;
  /** Start after this secret (the `next` of a report that stopped early); default the start. */
  after?: SecretPosition;
  /** Stop after the current page; the report's `next` says where to resume. */
  signal?: AbortSignal;
  /** Called after each page with the counts so far (progress for a CLI). */
  onPage?: (report: ResealReport) => void;
}

export interface ResealReport {
  /** The id of the key every secret is now sealed with (never the key). */
  sealingKeyId: string;
  /** Secrets read. */
  scanned: number;
  /** Sealed again with the current key by this run. */
  resealed: number;
  /** Already sealed with the current key. */
  current: number;
  /** Changed between the read and the write (a new value, a delete, another re-seal): left as they are. */
  changed: number;
  /** Sealed with a key this process does not hold, or damaged: left as they are, named here (never their values). */
  unopenable: SecretPosition[];
  /** Where to resume when stopped by `signal`; absent when the walk reached the end. */
  next?: SecretPosition;
}

const DEFAULT_BATCH = 100;

type Outcome = 'resealed' | 'current' | 'changed' | 'unopenable';

async function resealOne(secrets: SecretStore, cipher: SecretCipher, record: SecretRecord): Promise<Outcome> {
  if (await cipher.isCurrent(record.ciphertext)) return 'current';
  const slot = secretSlot(record.teamUid, record.name);
  let value: string;
  try {
    value = await cipher.open(record.ciphertext, slot);
  } catch {
    return 'unopenable';
  }
  const swapped = await secrets.reseal(record.teamUid, record.name, record.ciphertext, await cipher.seal(value, slot));
  return swapped ? 'resealed' : 'changed';
}

export async function resealSecrets(secrets: SecretStore, cipher: SecretCipher, options: ResealOptions = {}): Promise<ResealReport> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new TypeError('batchSize must be a positive whole number');
  // Without a key this rejects at once with the cipher's own 503 (secret-cipher.ts, missingCipher).
  await cipher.isCurrent('');
  const [sealingKeyId = ''] = await cipher.keyIds();
  const report: ResealReport = { sealingKeyId, scanned: 0, resealed: 0, current: 0, changed: 0, unopenable: [] };
  let after = options.after;
  for (;;) {
    const page = await secrets.scan(after, batchSize);
    // A page's secrets at once: each is one decrypt, one encrypt and one compare-and-set, and a
    // store with a pool runs the writes side by side (measured: docs/operations.md).
    const outcomes = await Promise.all(page.map((record) => resealOne(secrets, cipher, record)));
    page.forEach((record, i) => {
      report.scanned++;
      const outcome = outcomes[i];
      if (outcome === 'unopenable') report.unopenable.push({ teamUid: record.teamUid, name: record.name });
      else if (outcome) report[outcome]++;
    });
    const last = page.at(-1);
    if (last) after = { teamUid: last.teamUid, name: last.name };
    options.onPage?.(report);
    if (page.length < batchSize || !last) return report;
    if (options.signal?.aborted) return { ...report, next: { teamUid: last.teamUid, name: last.name } };
  }
}

/** What the re-seal did to the run-state callbacks' signing secrets (docs/callbacks.md). */
export interface CallbackResealReport {
  scanned: number;
  resealed: number;
  current: number;
  changed: number;
  /** The ids of endpoints whose secret no held key opens. */
  unopenable: string[];
}

/**
 * The same walk over every team's callback endpoints (their signing secrets are sealed with
 * `secretKey` too, bound to the endpoint: callbacks/records.ts `callbackSecretSlot`).
 */
export async function resealCallbackSecrets(
  callbacks: CallbackStore,
  cipher: SecretCipher,
  batchSize = DEFAULT_BATCH,
): Promise<CallbackResealReport> {
  const report: CallbackResealReport = { scanned: 0, resealed: 0, current: 0, changed: 0, unopenable: [] };
  let after: string | undefined;
  for (;;) {
    const page = await callbacks.scanEndpoints(after, batchSize);
    const outcomes = await Promise.all(
      page.map(async (e): Promise<Outcome> => {
        if (await cipher.isCurrent(e.secretCiphertext)) return 'current';
        const slot = callbackSecretSlot(e.teamUid, e.id);
        let value: string;
        try {
          value = await cipher.open(e.secretCiphertext, slot);
        } catch {
          return 'unopenable';
        }
        return (await callbacks.resealEndpoint(e.id, e.secretCiphertext, await cipher.seal(value, slot))) ? 'resealed' : 'changed';
      }),
    );
    page.forEach((e, i) => {
      report.scanned++;
      const outcome = outcomes[i];
      if (outcome === 'unopenable') report.unopenable.push(e.id);
      else if (outcome) report[outcome]++;
    });
    after = page.at(-1)?.id;
    if (page.length < batchSize || after === undefined) return report;
  }
}
