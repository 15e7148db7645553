import { invalidRequest } from '../errors.js';
import type { AmbientAgentConfig } from '../models/config.js';
import type { Store } from '../store/store.js';
import { authSecretNames, namedHarness } from './harness-auth.js';
import { HARNESS_TYPES, type HarnessInfo } from './harness-types.js';

/** The harnesses this server runs, where it knows them (the executor's `harnesses()`), else `undefined`. */
export type AvailableHarnesses = () => Promise<readonly HarnessInfo[] | undefined>;

/**
 * A run's harness is one this server can run, and each team secret its config names for the
 * harness's key is there (docs/harnesses.md): else a 400 naming the field and what is available.
 * Checked at run create; a secret deleted later fails the run (`auth_secret_unavailable`).
 */
export async function requireHarness(
  store: Store,
  teamUid: string,
  config: AmbientAgentConfig,
  available: AvailableHarnesses | undefined,
  what: string,
): Promise<void> {
  const type = namedHarness(config);
  if (type !== undefined) {
    const runs = await available?.();
    const names = runs?.map((h) => h.type) ?? HARNESS_TYPES;
    if (!names.includes(type as never)) {
      const offer = runs === undefined ? HARNESS_TYPES.join(', ') : runs.length === 0 ? 'none' : names.join(', ');
      throw invalidRequest(
        `invalid ${what}: config.harness.type: this server cannot run harness ${type}; it runs ${offer} (or oz, its default)`,
      );
    }
  }
  for (const { source, name } of authSecretNames(config)) {
    if (!(await store.secrets.get(teamUid, name)))
      throw invalidRequest(`invalid ${what}: config.${source}: no team secret named ${name}; create it first (POST /secrets)`);
  }
}
