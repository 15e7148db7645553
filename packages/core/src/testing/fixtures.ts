import type { Principal } from '../auth/principal.js';
import type { RunState } from '../models/run-state.js';
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

/** A complete run record with every field set to something plausible. */
export function makeRun(overrides: Partial<RunRecord> = {}): RunRecord {
  const now = isoTime(Date.UTC(2026, 0, 1));
  return {
    id: newId(),
    teamUid: 'team-1',
    title: 'Fix the bug',
    prompt: 'Fix the bug in auth.go',
    state: 'QUEUED' as RunState,
    createdAt: now,
    updatedAt: now,
    startedAt: null,
    statusMessage: null,
    source: 'API',
    creator: { type: 'user', uid: 'user-1', display_name: 'Test User' },
    config: { name: 'nightly', model_id: 'model-a', environment_id: 'env-1' },
    sessionId: null,
    sessionLink: null,
    conversationId: newId(),
    parentRunId: null,
    agentIdentityUid: null,
    factoryUid: null,
    skill: null,
    trigger: null,
    attachments: [],
    attempts: 0,
    lease: null,
    ...overrides,
  };
}
