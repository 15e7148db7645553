import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AutomationRecord, WebhookRecord } from '../src/control/records.js';
import { missingCipher } from '../src/control/secret-cipher.js';
import { webhookRun } from '../src/ingress/webhook-run.js';
import type { RunAgentRequest } from '../src/models/requests.js';
import { newRun } from '../src/run/new-run.js';
import type { AttachmentRecord, RunRecord } from '../src/run/record.js';
import { requestConfig } from '../src/run/request-config.js';
import { runFromRequest } from '../src/run/run-request.js';
import { SkillCatalog } from '../src/skills/skill-catalog.js';
import { isoTime } from '../src/util/clock.js';
import { T0 } from './helpers.js';

const NOW = isoTime(T0);

/** What every new run is, however it started (docs/state-machine.md). */
function expectFresh(run: RunRecord, attachments: readonly AttachmentRecord[], now: string) {
  expect(run).toMatchObject({
    state: 'QUEUED',
    createdAt: now,
    updatedAt: now,
    startedAt: null,
    statusMessage: null,
    sessionId: null,
    sessionLink: null,
    attempts: 0,
    lease: null,
  });
  expect(run.attachments).toEqual(attachments.map((a) => ({ file_name: a.fileName, mime_type: a.mimeType, size: a.data.byteLength })));
  for (const a of attachments) expect(a.runId).toBe(run.id);
}

const fileArb = fc.record({ fileName: fc.string({ minLength: 1, maxLength: 12 }), mimeType: fc.constantFrom('text/plain', 'image/png') });
const bytesArb = fc.uint8Array({ maxLength: 64 });

describe('newRun: the defaults of every new run', () => {
  it('sets what no caller decides, and keeps what the caller gave', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fileArb, bytesArb), { maxLength: 4 }),
        fc.option(fc.uuid(), { nil: undefined }),
        fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: null }),
        (files, conversationId, parentRunId) => {
          const attachments = files.map(([f, data]) => ({ runId: 'r-1', ...f, data }));
          const run = newRun({
            id: 'r-1',
            teamUid: 'team-1',
            title: 'T',
            prompt: 'P',
            source: 'API',
            creator: { type: 'user', uid: 'u-1' },
            config: { name: 'n' },
            skill: null,
            conversationId,
            parentRunId,
            factoryUid: null,
            trigger: null,
            attachments,
            now: NOW,
          });
          expectFresh(run, attachments, NOW);
          expect(run).toMatchObject({ id: 'r-1', teamUid: 'team-1', title: 'T', prompt: 'P', config: { name: 'n' }, parentRunId });
          expect(run.agentIdentityUid).toBeNull();
          // A conversation the run starts is named by the run's own ID (run/conversation-redirect.ts).
          expect(run.conversationId).toBe(conversationId ?? 'r-1');
        },
      ),
    );
  });

  it('starts a new conversation, named by its own ID, for each run that continues none', () => {
    const facts = {
      id: 'r',
      teamUid: 't',
      title: 't',
      prompt: '',
      source: 'API' as const,
      creator: { type: 'user' as const, uid: 'u' },
      config: {},
      skill: null,
      factoryUid: null,
      trigger: null,
      attachments: [],
      now: NOW,
    };
    expect(newRun(facts).conversationId).toBe('r');
    expect(newRun({ ...facts, id: 'r2' }).conversationId).toBe('r2');
  });

  it('is what both the run API and the webhook ingress store', async () => {
    const store = createMemoryStore();
    const principal = testPrincipal();
    const request: RunAgentRequest = {
      prompt: 'Fix it',
      attachments: [{ file_name: 'a.txt', mime_type: 'text/plain', data: 'aGk=' }],
    } as RunAgentRequest;
    const fromApi = await runFromRequest(store, principal, request, {}, 'run-api', NOW, new SkillCatalog(store, missingCipher, undefined));
    expectFresh(fromApi.run, fromApi.attachments, NOW);
    expect(fromApi.run).toMatchObject({ id: 'run-api', source: 'API', title: 'Fix it', parentRunId: null, agentIdentityUid: null });

    const webhook = { uid: 'w-1', teamUid: 'team-1', factoryUid: 'f-1', name: 'Hook' } as WebhookRecord;
    const automation = { id: 'a-1', name: 'Triage', prompt: 'Triage it', config: null } as AutomationRecord;
    const fromHook = webhookRun({ automation, webhook, deliveryId: 'd-1', payload: new TextEncoder().encode('{}'), now: NOW });
    expectFresh(fromHook.run, fromHook.attachments, NOW);
    expect(fromHook.run).toMatchObject({ source: 'WEBHOOK', title: 'Triage', factoryUid: 'f-1', config: {}, skill: null });
  });
});

describe('requestConfig: which skill a run request names', () => {
  const specArb = fc
    .tuple(fc.stringMatching(/^[a-z]{1,6}$/), fc.stringMatching(/^[a-z]{1,6}$/), fc.stringMatching(/^[a-z]{1,6}$/))
    .map(([owner, repo, name]) => `${owner}/${repo}:${name}`);

  it('takes skill, else config.skill_spec, else config.skills[0], and records it as the spec (the name comes once it resolves)', () => {
    fc.assert(
      fc.property(
        fc.option(specArb, { nil: undefined }),
        fc.option(specArb, { nil: undefined }),
        fc.array(specArb, { maxLength: 3 }),
        fc.option(fc.string({ maxLength: 5 }), { nil: undefined }),
        (skill, skillSpec, skills, name) => {
          const config = {
            ...(skillSpec !== undefined ? { skill_spec: skillSpec } : {}),
            ...(skills.length > 0 ? { skills } : {}),
            ...(name !== undefined ? { name } : {}),
          };
          const chosen = skill ?? skillSpec ?? skills[0];
          const result = requestConfig({ ...(skill !== undefined ? { skill } : {}), config });
          if (chosen === undefined) {
            expect(result).toMatchObject({ skill: null, config });
            return;
          }
          const skillName = chosen.split(':')[1];
          expect(result.skill).toEqual({ spec: chosen, name: skillName });
          expect(result.config).toEqual({ ...config, skill_spec: chosen });
        },
      ),
    );
  });

  it('names the field a malformed spec came from', () => {
    expect(() => requestConfig({ config: { skills: ['nope'] } })).toThrow(/config\.skills\[0\]/);
    expect(() => requestConfig({ skill: 'nope', config: { skill_spec: 'a/b:c' } })).toThrow(/invalid skill:/);
  });
});
