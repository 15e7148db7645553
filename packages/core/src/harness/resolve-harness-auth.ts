import type { SecretCipher } from '../control/secret-cipher.js';
import { secretSlot } from '../control/secret-cipher.js';
import { SecretValue } from '../environments/resolved.js';
import type { RunErrorCode } from '../run/error-codes.js';
import type { RunRecord } from '../run/record.js';
import type { Store } from '../store/store.js';
import { type AuthSecretSource, authSecretNames } from './harness-auth.js';

/** The team secrets a run's config names for its harness's key, opened, by where they are named. */
export type HarnessAuth = Readonly<Partial<Record<AuthSecretSource, SecretValue>>>;

/** A secret the run's config names is gone since the run was created: the run fails (`auth_secret_unavailable`). */
export class HarnessAuthUnavailable extends Error {
  readonly code: RunErrorCode = 'auth_secret_unavailable';
}

/** Each secret the config names, opened; none named: `undefined` (docs/harnesses.md, "Authentication"). */
export async function resolveHarnessAuth(store: Store, cipher: SecretCipher, run: RunRecord): Promise<HarnessAuth | undefined> {
  const named = authSecretNames(run.config);
  if (named.length === 0) return undefined;
  const out: Partial<Record<AuthSecretSource, SecretValue>> = {};
  for (const { source, name } of named) {
    const secret = await store.secrets.get(run.teamUid, name);
    if (!secret) throw new HarnessAuthUnavailable(`config.${source} names team secret ${name}, which no longer exists`);
    // One that cannot be opened (a server without its secret key, a key rotated away) fails the run, saying so.
    const value = await cipher.open(secret.ciphertext, secretSlot(run.teamUid, name)).catch((error: unknown) => {
      throw new HarnessAuthUnavailable(
        `team secret ${name} (config.${source}) cannot be opened: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
    // A key is one line of printable text: anything else cannot be a CLI's API key, and would end up in a header.
    if (value === '' || /[\x00-\x1f\x7f]/.test(value))
      throw new HarnessAuthUnavailable(
        `team secret ${name} (config.${source}) is empty or holds a control character, so it cannot be an API key`,
      );
    out[source] = new SecretValue(value);
  }
  return out;
}
