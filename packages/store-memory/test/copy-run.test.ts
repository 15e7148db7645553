import { isDeepStrictEqual } from 'node:util';
import type { RunRecord } from '@agentrun/core/store';
import { describe, expect, it } from 'vitest';
import { copyRun } from '../src/copy-run.js';

/** Every object and array reachable from `value`, the value itself included. */
function containers(value: unknown, into = new Set<object>()): Set<object> {
  if (typeof value !== 'object' || value === null || into.has(value)) return into;
  into.add(value);
  for (const inner of Object.values(value)) containers(inner, into);
  return into;
}

/** A run with every field that can hold an object holding one. */
const fullRun = (): RunRecord => ({
  id: 'r1',
  teamUid: 't1',
  title: 'Title',
  prompt: 'Prompt',
  state: 'FAILED',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:01.000Z',
  startedAt: '2026-01-01T00:00:00.500Z',
  statusMessage: { message: 'boom', error_code: 'agent_failed', retryable: false },
  source: 'WEBHOOK',
  creator: { type: 'service_account', uid: 'automation:a1', display_name: 'A' },
  config: { name: 'cfg', mcp_servers: { git: { command: 'git', args: ['mcp'], env: { A: '1' } } } } as RunRecord['config'],
  sessionId: 's',
  sessionLink: 'https://example.com/s',
  conversationId: 'c',
  parentRunId: 'p',
  ancestorRunIds: ['p', 'g'],
  agentIdentityUid: 'i',
  factoryUid: 'f',
  skill: { name: 'review', spec: 'acme/skills:review', repository: 'acme/skills', commit: 'abc' },
  trigger: { factory_uid: 'f', automation_id: 'a1', webhook_uid: 'w', delivery_id: 'd' },
  schedule: { schedule_id: 's1', schedule_name: 'nightly', cron_schedule: '0 0 * * *', due_at: '2026-01-01T00:00:00.000Z' },
  attachments: [{ file_name: 'event-payload.json', mime_type: 'application/json', size: 10 }],
  artifacts: [
    { artifact_type: 'PULL_REQUEST', created_at: '2026-01-01T00:00:01.000Z', data: { branch: 'b', url: 'https://example.com/pr' } },
  ],
  requestUsage: { inference_cost: 1 } as RunRecord['requestUsage'],
  attempts: 2,
  lease: { workerId: 'w1', expiresAt: '2026-01-01T00:01:00.000Z' },
});

describe('copyRun', () => {
  it('equals the run, keys in the same order, and shares no object or array with it', () => {
    const run = fullRun();
    const copied = copyRun(run);
    expect(isDeepStrictEqual(copied, structuredClone(run))).toBe(true);
    expect(Object.keys(copied)).toEqual(Object.keys(run));
    const shared = [...containers(copied)].filter((c) => containers(run).has(c));
    expect(shared).toEqual([]);
  });

  it('keeps null fields null and copies empty arrays', () => {
    const run: RunRecord = {
      ...fullRun(),
      statusMessage: null,
      skill: null,
      trigger: null,
      schedule: null,
      requestUsage: null,
      lease: null,
      artifacts: [],
    };
    const copied = copyRun(run);
    expect(isDeepStrictEqual(copied, run)).toBe(true);
    expect(copied.artifacts).not.toBe(run.artifacts);
  });
});
