import { randomBytes } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SecretKeyOption } from '@agentrun/core';
import { createSecretCipher } from '@agentrun/core/internal';
import type { ServerStore } from './open-store.js';
import { SettingError } from './read-settings.js';

/** The key that seals team secrets, and the start-up line that says where it comes from. */
export interface ServerSecretKey {
  key: SecretKeyOption | undefined;
  line: string;
}

/** The file in the embedded store's data directory that keeps its key. */
const KEPT_KEY_FILE = 'secret-key';

/**
 * Team secrets are sealed with AGENTRUN_SECRET_KEY (one key, or a list: the first seals, all open;
 * docs/operations.md, "Rotating the secret key"). Without one, a durable store never seals with a
 * key lost at restart: the embedded store keeps a key of its own in its data directory (mode
 * 0600), PostgreSQL gets none (storing a secret answers 503 and says why), and the memory store,
 * whose data dies with the process anyway, gets one for this process.
 */
export async function serverSecretKey(configured: string | string[] | undefined, opened: ServerStore): Promise<ServerSecretKey> {
  if (configured !== undefined) {
    // Key ids, never keys: what to compare across processes during a rotation.
    const [sealing, ...opening] = await keyIds(configured, 'AGENTRUN_SECRET_KEY');
    return { key: configured, line: `sealed with key ${sealing}${opening.length ? `; also opens ${opening.join(', ')}` : ''}` };
  }
  if (opened.kind === 'memory')
    return { key: randomBytes(32), line: 'sealed with a key for this process only (set AGENTRUN_SECRET_KEY to keep one)' };
  if (opened.kind === 'postgres' || opened.dataDir === undefined)
    return { key: undefined, line: 'disabled (set AGENTRUN_SECRET_KEY, e.g. from `openssl rand -base64 32`)' };
  const file = join(opened.dataDir, KEPT_KEY_FILE);
  const { key, made } = await keptKey(file);
  const [sealing] = await keyIds(key, file);
  return {
    key,
    line: `sealed with key ${sealing}, ${made ? 'made now and ' : ''}kept in ${file} (back it up with the data directory; AGENTRUN_SECRET_KEY overrides it)`,
  };
}

/** The kept key, made on the first start; only its owner may read it. */
async function keptKey(file: string): Promise<{ key: string; made: boolean }> {
  try {
    await writeFile(file, `${randomBytes(32).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
    return { key: (await readFile(file, 'utf8')).trim(), made: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const mode = (await stat(file)).mode & 0o777;
  if (mode & 0o077) {
    throw new SettingError(
      'AGENTRUN_DATA_DIR',
      `${file} holds the key that seals team secrets and others may read it (mode ${mode.toString(8)}): chmod 600 it`,
    );
  }
  return { key: (await readFile(file, 'utf8')).trim(), made: false };
}

/** The keys' ids, or a SettingError saying what is wrong with them (never the keys). */
async function keyIds(key: SecretKeyOption, source: string): Promise<readonly string[]> {
  try {
    return await createSecretCipher(key).keyIds();
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    throw new SettingError(source, error.message.replace(/^secretKey\b/, source));
  }
}
