import type { EnvironmentRecord } from '../environments/records.js';
import type { Store } from '../store/store.js';

/** An environment record for tests (docs/repositories.md, "Environments"): no repositories, no setup. */
export function makeEnvironment(overrides: Partial<EnvironmentRecord> = {}): EnvironmentRecord {
  const at = '2026-01-01T00:00:00.000Z';
  return {
    id: 'env-1',
    teamUid: 'team-1',
    factoryUid: null,
    name: overrides.id ?? 'env-1',
    repositories: [],
    setup: [],
    variables: {},
    setupTimeoutSeconds: 600,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}

/**
 * Store environments of these ids for the team, so that runs naming them (`config.environment_id`)
 * are accepted: an unknown one is a 400.
 */
export async function seedEnvironments(store: Store, teamUid: string, ...ids: string[]): Promise<void> {
  for (const id of ids) {
    const put = await store.environments.put(makeEnvironment({ id, teamUid }));
    if (!put.ok) throw new Error(`environment ${id}: ${put.reason}`);
  }
}
