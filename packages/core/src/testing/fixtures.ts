import type { Principal } from '../auth/principal.js';
import { newRun } from '../run/new-run.js';
import type { RunRecord } from '../run/record.js';
import { isoTime } from '../util/clock.js';
import { newId } from '../util/ids.js';

/** A principal for tests. */
export const testPrincipal = (overrides: Partial<Principal> = {}): Principal => ({
  type: 'user',
  uid: 'user-1',
  display_name: 'Test User',
  email: 'test@example.com',
  team_uid: 'team-1',
  permissions: ['manage_factory'],
  ...overrides,
});

/** A complete run record with every field set to something plausible: a new run (run/new-run.ts) unless overridden. */
export function makeRun(overrides: Partial<RunRecord> = {}): RunRecord {
  const run = newRun({
    id: newId(),
    teamUid: 'team-1',
    title: 'Fix the bug',
    prompt: 'Fix the bug in auth.go',
    source: 'API',
    creator: { type: 'user', uid: 'user-1', display_name: 'Test User' },
    config: { name: 'nightly', model_id: 'model-a', environment_id: 'env-1' },
    skill: null,
    factoryUid: null,
    trigger: null,
    attachments: [],
    now: isoTime(Date.UTC(2026, 0, 1)),
  });
  return { ...run, ...overrides };
}
