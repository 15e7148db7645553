import { FAKE_SKILL_COMMIT, makeRun, seedEnvironments, testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import fc from 'fast-check';
import * as v from 'valibot';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../src/auth/principal.js';
import type { AgentRunEventMap } from '../src/events.js';
import { createAgentRunHandler, createApiKey } from '../src/index.js';
import { type RunItem, RunItemSchema } from '../src/models/run.js';
import { RUN_STATES, type RunState } from '../src/models/run-state.js';
import { DEFAULT_IDEMPOTENCY_TTL_MS } from '../src/run/idempotency.js';
import { titleFromPrompt } from '../src/run/title.js';
import { b64, driveTo, expectProblem, type Harness, setup, T0 } from './helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await setup({
    skills: ['acme/tools:skills/web/deploy/SKILL.md', 'acme/tools:deploy', 'acme/tools:lint', 'acme/tools:review/SKILL.md'],
  });
  // Runs below name environment `env-1`: an unknown environment_id is a 400.
  await seedEnvironments(h.store, h.principal.team_uid, 'env-1');
});

const create = async (body: unknown, headers: Record<string, string> = {}) => {
  const r = await h.json<{ run_id: string; task_id: string; state: RunState }>('POST', '/agent/run', { body, headers });
  if (r.status !== 200) throw new Error(`create failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r;
};
const createId = async (body: unknown) => (await create(body)).body.run_id;
const getRun = async (id: string, key?: string) => {
  const r = await h.json<RunItem>('GET', `/agent/runs/${id}`, key === undefined ? {} : { key });
  expect(r.status).toBe(200);
  return v.parse(RunItemSchema, r.body);
};
const listAll = async (key?: string) => {
  const r = await h.json<{ runs: RunItem[] }>('GET', '/agent/runs?limit=500', key === undefined ? {} : { key });
  expect(r.status).toBe(200);
  return r.body.runs;
};

/** Record every event the handler emits. */
function recordEvents() {
  const seen: { name: keyof AgentRunEventMap; event: AgentRunEventMap[keyof AgentRunEventMap][0] }[] = [];
  for (const name of ['run.created', 'run.state_changed', 'run.followup'] as const) {
    h.handler.events.on(name, (event: AgentRunEventMap[typeof name][0]) => seen.push({ name, event }));
  }
  return seen;
}

// ─────────────────────────────────────────────── create

describe('create', () => {
  it('answers RunAgentResponse and stores a complete QUEUED run', async () => {
    h.clock.set(T0 + 1234);
    const { body, res } = await create({ prompt: 'Fix the flaky test', config: { model_id: 'm-1', environment_id: 'env-1' } });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(body).toEqual({ run_id: expect.any(String), task_id: body.run_id, state: 'QUEUED' });
    const run = await getRun(body.run_id);
    expect(run).toMatchObject({
      run_id: body.run_id,
      task_id: body.run_id,
      title: 'Fix the flaky test',
      prompt: 'Fix the flaky test',
      state: 'QUEUED',
      created_at: new Date(T0 + 1234).toISOString(),
      updated_at: new Date(T0 + 1234).toISOString(),
      source: 'API',
      creator: { type: 'user', uid: h.principal.uid, display_name: h.principal.display_name, email: h.principal.email },
      agent_config: { model_id: 'm-1', environment_id: 'env-1' },
      attachments: [],
    });
    expect(run.conversation_id).toEqual(expect.any(String));
    expect(run.agent_skill).toBeUndefined();
    expect(run.parent_run_id).toBeUndefined();
  });

  it('gives every run its own id', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 10; i++) ids.add(await createId({ prompt: `p${i}` }));
    expect(ids.size).toBe(10);
    expect(await listAll()).toHaveLength(10);
  });

  describe('title', () => {
    it.each([
      ['the first line', 'Deploy the app\nthen check logs', 'Deploy the app'],
      ['the first non-empty line', '\n\n   \n  Fix it  \nmore', 'Fix it'],
      ['with whitespace collapsed', '\t Fix   the\tbug ', 'Fix the bug'],
      ['across CRLF', '\r\n\r\nHello\r\nWorld', 'Hello'],
      ['exactly 80 characters untouched', 'x'.repeat(80), 'x'.repeat(80)],
      ['81 characters without spaces cut to 79 + …', 'y'.repeat(81), `${'y'.repeat(79)}…`],
      ['cut before an emoji rather than through it', `${'a'.repeat(78)}😀😀`, `${'a'.repeat(78)}…`],
    ])('is %s', async (_, prompt, title) => {
      const run = await getRun(await createId({ prompt }));
      expect(run.title).toBe(title);
    });

    it('cuts long lines at a word boundary, with …, within 80 characters', async () => {
      const prompt = 'Refactor the authentication middleware so that every request handler shares one session cache';
      const run = await getRun(await createId({ prompt }));
      expect(run.title.length).toBeLessThanOrEqual(80);
      expect(run.title.endsWith('…')).toBe(true);
      const stem = run.title.slice(0, -1);
      expect(prompt.startsWith(stem)).toBe(true);
      expect(prompt[stem.length]).toBe(' '); // cut at a word boundary
    });

    it('uses an explicit title over the prompt (trimmed); a blank title counts as none', async () => {
      expect((await getRun(await createId({ prompt: 'long prompt', title: '  Nightly cleanup ' }))).title).toBe('Nightly cleanup');
      expect((await getRun(await createId({ prompt: 'From the prompt', title: '   ' }))).title).toBe('From the prompt');
    });

    it('property: ≤ 80 characters, well-formed, and the first non-empty line or a prefix of it with …', () => {
      const line = fc.oneof(
        fc.string({ unit: 'binary', maxLength: 200, size: 'large' }),
        // long lines of words, emoji (surrogate pairs) and whitespace, so that cuts land everywhere
        fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\t', '😀', '𝒳', 'é'), minLength: 60, maxLength: 140 }),
      );
      fc.assert(
        fc.property(fc.array(line, { minLength: 1, maxLength: 4 }), (lines) => {
          const prompt = lines.join('\n');
          const first = prompt
            .split(/\r?\n/)
            .map((l) => l.replace(/\s+/g, ' ').trim())
            .find((l) => l !== '');
          const title = titleFromPrompt(prompt, 'FALLBACK');
          if (first === undefined) {
            expect(title).toBe('FALLBACK');
            return;
          }
          expect(title.length).toBeLessThanOrEqual(80);
          expect(title).not.toMatch(/\p{Surrogate}/u); // no lone surrogate halves
          if (first.length <= 80) expect(title).toBe(first);
          else {
            expect(title.endsWith('…')).toBe(true);
            expect(first.startsWith(title.slice(0, -1))).toBe(true);
          }
        }),
        { numRuns: 1000 },
      );
    });
  });

  describe('skills', () => {
    it.each([
      [
        'skill, name form',
        { skill: 'acme/tools:deploy' },
        { name: 'deploy', spec: 'acme/tools:deploy', full_path: 'skills/web/deploy/SKILL.md' },
      ],
      [
        'skill, SKILL.md form',
        { skill: 'acme/tools:skills/web/deploy/SKILL.md' },
        { name: 'deploy', spec: 'acme/tools:skills/web/deploy/SKILL.md', full_path: 'skills/web/deploy/SKILL.md' },
      ],
      ['config.skill_spec, name form', { config: { skill_spec: 'acme/tools:lint' } }, { name: 'lint', spec: 'acme/tools:lint' }],
      [
        'config.skill_spec, SKILL.md form',
        { config: { skill_spec: 'acme/tools:review/SKILL.md' } },
        { name: 'review', spec: 'acme/tools:review/SKILL.md', full_path: 'review/SKILL.md' },
      ],
    ])('%s: needs no prompt, names the run, sets agent_skill, pinned, its body the base prompt', async (_, body, skill) => {
      const run = await getRun(await createId(body));
      expect(run.agent_skill).toEqual({
        full_path: `skills/${skill.name}/SKILL.md`,
        ...skill,
        description: `The ${skill.name} skill.`,
        repository: 'acme/tools',
        commit: FAKE_SKILL_COMMIT,
      });
      expect(run.agent_config?.base_prompt).toBe(`Do ${skill.name}.`);
      expect(run.agent_config?.name).toBe(skill.name);
      expect(run.agent_config?.skill_spec).toBe(skill.spec);
      expect(run.prompt).toBe('');
      expect(run.title).toBe(skill.name);
    });

    it('keeps an explicit config.name', async () => {
      const run = await getRun(await createId({ skill: 'acme/tools:deploy', config: { name: 'release-train' } }));
      expect(run.agent_config?.name).toBe('release-train');
      expect(run.agent_skill?.name).toBe('deploy');
    });

    it('skill wins over config.skill_spec (even an invalid one)', async () => {
      const run = await getRun(await createId({ skill: 'acme/tools:deploy', config: { skill_spec: 'other/repo:lint' } }));
      expect(run.agent_skill).toMatchObject({ name: 'deploy', spec: 'acme/tools:deploy' });
      expect(run.agent_config?.skill_spec).toBe('acme/tools:deploy');
      expect(run.agent_config?.name).toBe('deploy');
      const run2 = await getRun(await createId({ skill: 'acme/tools:deploy', config: { skill_spec: 'not a spec' } }));
      expect(run2.agent_skill?.name).toBe('deploy');
    });

    it('takes the title from the prompt when both are given', async () => {
      const run = await getRun(await createId({ skill: 'acme/tools:deploy', prompt: 'Ship v2' }));
      expect(run.title).toBe('Ship v2');
      expect(run.prompt).toBe('Ship v2');
    });

    const INVALID = [
      '',
      'deploy',
      'acme:deploy',
      'acme/tools',
      'acme/tools:',
      '/tools:deploy',
      'acme/:deploy',
      'acme/tools/extra:deploy',
      'acme/tools:..',
      'acme/tools:.',
      'acme/tools:a/b',
      'acme/tools:deploy/README.md',
      'acme/tools:deploy/skill.md',
      'acme/tools:/SKILL.md',
      'acme/tools:SKILL.md',
      'acme/tools:../SKILL.md',
      'acme/tools:a/../SKILL.md',
      'acme/tools:a//SKILL.md',
      'acme/tools:de ploy',
      ' acme/tools:deploy',
      'https://github.com/acme/tools',
      'acme/tools:deploy\n',
    ];
    it.each(INVALID.map((spec) => ({ spec })))('rejects skill $spec with a 400 naming the field', async ({ spec }) => {
      const asSkill = await expectProblem(
        await h.call('POST', '/agent/run', { body: { skill: spec, prompt: 'p' } }),
        400,
        'invalid_request',
      );
      expect(asSkill.detail).toMatch(/\bskill\b/);
      const asSpec = await expectProblem(
        await h.call('POST', '/agent/run', { body: { config: { skill_spec: spec }, prompt: 'p' } }),
        400,
        'invalid_request',
      );
      expect(asSpec.detail).toContain('config.skill_spec');
    });
    it('creates nothing for invalid skills', async () => {
      for (const spec of INVALID) await h.call('POST', '/agent/run', { body: { skill: spec } });
      expect(await listAll()).toHaveLength(0);
    });
  });

  describe('prompt', () => {
    it.each([
      ['an empty object', {}],
      ['an empty prompt', { prompt: '' }],
      ['a blank prompt', { prompt: ' \n\t ' }],
      ['config without a skill', { config: { name: 'x', model_id: 'm' } }],
      ['a title only', { title: 'just a title' }],
    ])('is required without a skill: %s → 400', async (_, body) => {
      const p = await expectProblem(await h.call('POST', '/agent/run', { body }), 400, 'invalid_request');
      expect(p.detail).toMatch(/prompt/);
    });
  });

  describe('attachments', () => {
    const file = (file_name: string, data = b64(file_name), mime_type = 'text/plain') => ({ file_name, mime_type, data });

    it('stores up to five and serves them byte-exact', async () => {
      const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
      const id = await createId({
        prompt: 'see files',
        attachments: [file('all-bytes.bin', b64(bytes), 'application/octet-stream'), file('notes.txt', b64('hello\n'))],
        images: [{ mime_type: 'image/png', data: b64('\x89PNG fake') }],
      });
      const run = await getRun(id);
      expect(run.attachments).toEqual([
        { file_name: 'all-bytes.bin', mime_type: 'application/octet-stream', size: 256 },
        { file_name: 'notes.txt', mime_type: 'text/plain', size: 6 },
        { file_name: 'image-1.png', mime_type: 'image/png', size: new TextEncoder().encode('\x89PNG fake').byteLength },
      ]);
      const res = await h.call('GET', `/agent/runs/${id}/attachments/all-bytes.bin`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      expect(res.headers.get('content-length')).toBe('256');
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
      const direct = await h.handler.service.getAttachment(h.principal, id, 'notes.txt');
      expect(new TextDecoder().decode(direct.data)).toBe('hello\n');
      expect(direct.mimeType).toBe('text/plain');
    });

    it('serves names that need percent-encoding', async () => {
      const name = 'résumé final (v2).txt';
      const id = await createId({ prompt: 'p', attachments: [file(name)] });
      const res = await h.call('GET', `/agent/runs/${id}/attachments/${encodeURIComponent(name)}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(name);
      expect(res.headers.get('content-disposition')).toContain(encodeURIComponent(name));
    });

    it('answers 404 for an unknown attachment', async () => {
      const id = await createId({ prompt: 'p', attachments: [file('a.txt')] });
      await expectProblem(await h.call('GET', `/agent/runs/${id}/attachments/b.txt`), 404, 'not_found');
    });

    it('property: any bytes round-trip exactly', async () => {
      await fc.assert(
        fc.asyncProperty(fc.uint8Array({ maxLength: 3000 }), async (bytes) => {
          const id = await createId({ prompt: 'p', attachments: [file('data.bin', b64(bytes), 'application/octet-stream')] });
          const res = await h.call('GET', `/agent/runs/${id}/attachments/data.bin`);
          expect(res.status).toBe(200);
          expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
          expect((await getRun(id)).attachments?.[0]?.size).toBe(bytes.byteLength);
        }),
        { numRuns: 40 },
      );
    });

    it('accepts five in all, attachments and images together', async () => {
      const id = await createId({
        prompt: 'p',
        attachments: [file('a'), file('b'), file('c')],
        images: [
          { mime_type: 'image/png', data: b64('1') },
          { mime_type: 'image/jpeg', data: b64('2') },
        ],
      });
      expect((await getRun(id)).attachments?.map((a) => a.file_name)).toEqual(['a', 'b', 'c', 'image-1.png', 'image-2.jpg']);
    });

    it('gives images names that do not collide with attachments', async () => {
      const id = await createId({
        prompt: 'p',
        attachments: [file('image-1.png')],
        images: [{ mime_type: 'image/png', data: b64('img') }],
      });
      const names = (await getRun(id)).attachments?.map((a) => a.file_name) ?? [];
      expect(new Set(names).size).toBe(2);
      expect(names[0]).toBe('image-1.png');
      const res = await h.call('GET', `/agent/runs/${id}/attachments/${encodeURIComponent(names[1] as string)}`);
      expect(await res.text()).toBe('img');
    });

    it.each([
      ['six attachments', { attachments: ['1', '2', '3', '4', '5', '6'].map((n) => file(n)) }],
      ['six images', { images: Array.from({ length: 6 }, () => ({ mime_type: 'image/png', data: b64('x') })) }],
      [
        'three attachments and three images',
        {
          attachments: [file('a'), file('b'), file('c')],
          images: Array.from({ length: 3 }, () => ({ mime_type: 'image/png', data: b64('x') })),
        },
      ],
      ['duplicate file names', { attachments: [file('same.txt'), file('same.txt', b64('other'))] }],
      ['data that is not base64', { attachments: [file('a', 'not base64!')] }],
      ['base64 without padding', { attachments: [file('a', 'YQ')] }],
      ['base64url alphabet', { attachments: [file('a', 'ab-_')] }],
      ['base64 with whitespace', { attachments: [file('a', 'YW Jj')] }],
      ['a data URL', { attachments: [file('a', 'data:text/plain;base64,YQ==')] }],
      ['a bad MIME type', { attachments: [file('a', 'YQ==', 'text')] }],
      ['a slash in the file name', { attachments: [file('../etc/passwd', 'YQ==')] }],
      ['a file name of ..', { attachments: [file('..', 'YQ==')] }],
      ['an empty file name', { attachments: [file('', 'YQ==')] }],
      ['a control character in the file name', { attachments: [file('a\nb', 'YQ==')] }],
      ['an image of an unsupported type', { images: [{ mime_type: 'image/svg+xml', data: 'YQ==' }] }],
      ['an image with a file name', { images: [{ file_name: 'x.png', mime_type: 'image/png', data: 'YQ==' }] }],
      ['an attachment without data', { attachments: [{ file_name: 'a', mime_type: 'text/plain' }] }],
    ])('rejects %s with a 400 and creates nothing', async (_, extra) => {
      const p = await expectProblem(await h.call('POST', '/agent/run', { body: { prompt: 'p', ...extra } }), 400, 'invalid_request');
      expect(p.detail).toMatch(/attachment|image/);
      expect(await listAll()).toHaveLength(0);
    });
  });

  describe('large attachment data, checked as it is decoded', () => {
    // Data over 1 MiB is checked after the schema, one file a turn (run/request-attachments.ts):
    // the answer must be the schema's, at the same path, and nothing created.
    const big = Buffer.alloc(1_500_000, 7).toString('base64');
    const file = (file_name: string, data = 'YQ==') => ({ file_name, mime_type: 'application/octet-stream', data });
    it.each([
      [
        'a character outside the alphabet',
        'attachments.1.data',
        { attachments: [file('a'), file('b', `${big.slice(0, 1000)}!${big.slice(1001)}`)] },
      ],
      ['the base64url alphabet', 'attachments.0.data', { attachments: [file('a', `${big.slice(0, 8)}-_${big.slice(10)}`)] }],
      [
        'no padding',
        'images.0.data',
        { images: [{ mime_type: 'image/png', data: Buffer.alloc(1_500_001, 7).toString('base64').replace(/=+$/, '') }] },
      ],
      ['bits left over', 'images.0.data', { images: [{ mime_type: 'image/png', data: `${big.slice(0, -4)}AAB=` }] }],
    ])('refuses %s at its path with a 400 and creates nothing', async (_, path, extra) => {
      const p = await expectProblem(await h.call('POST', '/agent/run', { body: { prompt: 'p', ...extra } }), 400, 'invalid_request');
      expect(p.detail).toBe(
        `invalid run request: ${path}: must be standard base64 (RFC 4648, padded, as every standard encoder writes it)`,
      );
      expect(p.errors).toEqual([{ path, detail: 'must be standard base64 (RFC 4648, padded, as every standard encoder writes it)' }]);
      expect(await listAll()).toHaveLength(0);
    });

    it('accepts large canonical data and keeps its bytes', async () => {
      const id = await createId({ prompt: 'p', attachments: [file('big.bin', big)] });
      const res = await h.call('GET', `/agent/runs/${id}/attachments/big.bin`);
      expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.alloc(1_500_000, 7))).toBe(true);
    });
  });

  describe('parent run and conversation', () => {
    it('continues the parent conversation', async () => {
      const parentId = await createId({ prompt: 'parent' });
      const parent = await getRun(parentId);
      const child = await getRun(await createId({ prompt: 'child', parent_run_id: parentId }));
      expect(child.parent_run_id).toBe(parentId);
      expect(child.conversation_id).toBe(parent.conversation_id);
      const grandchild = await getRun(await createId({ prompt: 'grandchild', parent_run_id: child.run_id }));
      expect(grandchild.conversation_id).toBe(parent.conversation_id);
    });

    it('starts a new conversation without a parent', async () => {
      const a = await getRun(await createId({ prompt: 'a' }));
      const b = await getRun(await createId({ prompt: 'b' }));
      expect(a.conversation_id).not.toBe(b.conversation_id);
    });

    it('keeps an explicit conversation_id', async () => {
      const parentId = await createId({ prompt: 'parent' });
      const child = await getRun(await createId({ prompt: 'child', parent_run_id: parentId, conversation_id: 'conv-explicit' }));
      expect(child.conversation_id).toBe('conv-explicit');
    });

    it('rejects an unknown parent, and a parent of another team, with a 400 naming parent_run_id', async () => {
      const p1 = await expectProblem(await h.call('POST', '/agent/run', { body: { prompt: 'c', parent_run_id: 'nope' } }), 400);
      expect(p1.detail).toContain('parent_run_id');
      const other = testPrincipal({ uid: 'u-other', team_uid: 'team-other' });
      const otherRun = await h.handler.service.create(other, { prompt: 'theirs' });
      const p2 = await expectProblem(
        await h.call('POST', '/agent/run', { body: { prompt: 'c', parent_run_id: otherRun.body.run_id } }),
        400,
      );
      expect(p2.detail).toContain('parent_run_id');
      expect(await listAll()).toHaveLength(0);
    });
  });

  it('POST /agent/runs is an alias of POST /agent/run', async () => {
    const r = await h.json<{ run_id: string; state: string }>('POST', '/agent/runs', { body: { prompt: 'alias' } });
    expect(r.status).toBe(200);
    expect(r.body.state).toBe('QUEUED');
    expect((await getRun(r.body.run_id)).prompt).toBe('alias');
  });
});

// ─────────────────────────────────────────────── team scoping

describe('team scoping', () => {
  const other: Principal = testPrincipal({ uid: 'user-9', team_uid: 'team-2', display_name: 'Other' });
  let otherKey: string;
  beforeEach(async () => {
    otherKey = await h.keyFor(other);
  });

  it('hides runs of another team from get, cancel, follow-up, attachments and list', async () => {
    const id = await createId({ prompt: 'mine', attachments: [{ file_name: 'a.txt', mime_type: 'text/plain', data: b64('a') }] });
    await driveTo(h.handler.service, id, 'SUCCEEDED');
    await expectProblem(await h.call('GET', `/agent/runs/${id}`, { key: otherKey }), 404, 'not_found');
    await expectProblem(await h.call('POST', `/agent/runs/${id}/cancel`, { key: otherKey }), 404, 'not_found');
    await expectProblem(await h.call('POST', `/agent/runs/${id}/followups`, { key: otherKey, body: { message: 'hi' } }), 404, 'not_found');
    await expectProblem(await h.call('GET', `/agent/runs/${id}/attachments/a.txt`, { key: otherKey }), 404, 'not_found');
    expect(await listAll(otherKey)).toEqual([]);
    // and nothing happened to the run
    const run = await getRun(id);
    expect(run.state).toBe('SUCCEEDED');
    expect(await h.store.runs.listFollowups(id)).toEqual([]);
  });

  it('answers 404 for an unknown run exactly as for another team’s', async () => {
    const id = await createId({ prompt: 'mine' });
    const theirs = await expectProblem(await h.call('GET', `/agent/runs/${id}`, { key: otherKey }), 404);
    const unknown = await expectProblem(await h.call('GET', '/agent/runs/does-not-exist', { key: otherKey }), 404);
    expect(theirs.detail.replace(id, 'X')).toBe(unknown.detail.replace('does-not-exist', 'X'));
  });

  it('lists only the caller’s team, including for teammates', async () => {
    const teammate = testPrincipal({ uid: 'user-2', display_name: 'Mate' });
    const mateKey = await h.keyFor(teammate);
    const mine = await createId({ prompt: 'a' });
    const theirs = (await h.json<{ run_id: string }>('POST', '/agent/run', { key: otherKey, body: { prompt: 'b' } })).body.run_id;
    const mates = (await h.json<{ run_id: string }>('POST', '/agent/run', { key: mateKey, body: { prompt: 'c' } })).body.run_id;
    expect((await listAll()).map((r) => r.run_id).sort()).toEqual([mine, mates].sort());
    expect((await listAll(otherKey)).map((r) => r.run_id)).toEqual([theirs]);
    expect((await getRun(mates)).creator?.uid).toBe('user-2');
  });
});

// ─────────────────────────────────────────────── cancel

describe('cancel', () => {
  it.each(['QUEUED', 'CLAIMED', 'PENDING', 'INPROGRESS', 'BLOCKED'] as const)('cancels a %s run and answers its id', async (state) => {
    const id = await createId({ prompt: 'p' });
    await driveTo(h.handler.service, id, state);
    h.clock.advance(5000);
    const res = await h.call('POST', `/agent/runs/${id}/cancel`);
    expect(res.status).toBe(200);
    // The bare ID as text/plain, no JSON quotes (docs/run-api.md, "Cancel").
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe(id);
    const run = await getRun(id);
    expect(run.state).toBe('CANCELLED');
    expect(run.updated_at).toBe(new Date(T0 + 5000).toISOString());
    expect(run.status_message?.message).toMatch(/Cancelled/);
  });

  it.each(['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'] as const)('refuses a %s run with a 400 and changes nothing', async (state) => {
    const id = await createId({ prompt: 'p' });
    await driveTo(h.handler.service, id, state);
    const before = await getRun(id);
    h.clock.advance(5000);
    const p = await expectProblem(await h.call('POST', `/agent/runs/${id}/cancel`), 400, 'invalid_request');
    expect(p.detail).toContain(state);
    expect(await getRun(id)).toEqual(before);
  });

  it('accepts an empty JSON object as the body', async () => {
    const id = await createId({ prompt: 'p' });
    const res = await h.call('POST', `/agent/runs/${id}/cancel`, { body: {} });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(id);
  });

  it('answers 404 for an unknown run', async () => {
    await expectProblem(await h.call('POST', '/agent/runs/nope/cancel'), 404, 'not_found');
  });
});

// ─────────────────────────────────────────────── follow-ups

describe('follow-up', () => {
  it.each(['SUCCEEDED', 'FAILED'] as const)('re-queues a %s run and stores the message', async (state) => {
    const id = await createId({ prompt: 'p' });
    await driveTo(h.handler.service, id, state);
    h.clock.advance(60_000);
    const r = await h.json('POST', `/agent/runs/${id}/followups`, { body: { message: 'Now also update the docs' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ run_id: id, state: 'QUEUED' });
    const run = await getRun(id);
    expect(run.state).toBe('QUEUED');
    expect(run.updated_at).toBe(new Date(T0 + 60_000).toISOString());
    const followups = await h.store.runs.listFollowups(id);
    expect(followups).toEqual([
      {
        id: expect.any(String),
        runId: id,
        message: 'Now also update the docs',
        createdAt: new Date(T0 + 60_000).toISOString(),
        creatorUid: h.principal.uid,
      },
    ]);
  });

  it('gives a re-queued run a fresh retry budget and clears its status', async () => {
    const run = makeRun({ state: 'FAILED', attempts: 3, statusMessage: { message: 'boom', error_code: 'x' } });
    await h.store.runs.create({ run, attachments: [] });
    const r = await h.json('POST', `/agent/runs/${run.id}/followups`, { body: { message: 'again' } });
    expect(r.status).toBe(200);
    const stored = await h.store.runs.get(run.id);
    expect(stored).toMatchObject({ state: 'QUEUED', attempts: 0, statusMessage: null, lease: null });
  });

  it.each(['CANCELLED', 'ERROR'] as const)('refuses a %s run with 409 and x-should-retry: false', async (state) => {
    const id = await createId({ prompt: 'p' });
    await driveTo(h.handler.service, id, state);
    const before = await getRun(id);
    const res = await h.call('POST', `/agent/runs/${id}/followups`, { body: { message: 'more' } });
    expect(res.headers.get('x-should-retry')).toBe('false');
    const p = await expectProblem(res, 409, 'conflict');
    expect(p.detail).toContain(state);
    expect(await getRun(id)).toEqual(before);
    expect(await h.store.runs.listFollowups(id)).toEqual([]);
  });

  it.each(['QUEUED', 'CLAIMED', 'PENDING', 'INPROGRESS', 'BLOCKED'] as const)('keeps a %s run in its state', async (state) => {
    const id = await createId({ prompt: 'p' });
    await driveTo(h.handler.service, id, state);
    const r = await h.json('POST', `/agent/runs/${id}/followups`, { body: { message: 'steer left' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ run_id: id, state });
    expect((await getRun(id)).state).toBe(state);
    expect((await h.store.runs.listFollowups(id)).map((f) => f.message)).toEqual(['steer left']);
  });

  it('keeps follow-ups in order', async () => {
    const id = await createId({ prompt: 'p' });
    for (const m of ['one', 'two', 'three']) {
      h.clock.advance(1);
      expect((await h.call('POST', `/agent/runs/${id}/followups`, { body: { message: m } })).status).toBe(200);
    }
    expect((await h.store.runs.listFollowups(id)).map((f) => f.message)).toEqual(['one', 'two', 'three']);
  });

  it.each([
    ['no message', {}],
    ['an empty message', { message: '' }],
    ['a non-string message', { message: 42 }],
    ['an unknown field', { message: 'x', urgent: true }],
  ])('rejects %s with a 400', async (_, body) => {
    const id = await createId({ prompt: 'p' });
    const p = await expectProblem(await h.call('POST', `/agent/runs/${id}/followups`, { body }), 400, 'invalid_request');
    expect(p.detail).toMatch(/message|urgent/);
    expect(await h.store.runs.listFollowups(id)).toEqual([]);
  });

  it('answers 404 for an unknown run', async () => {
    await expectProblem(await h.call('POST', '/agent/runs/nope/followups', { body: { message: 'x' } }), 404, 'not_found');
  });
});

// ─────────────────────────────────────────────── events

describe('events', () => {
  it('emits run.created once per run, with the run item and team', async () => {
    const seen = recordEvents();
    const id = await createId({ prompt: 'p', title: 'T' });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.name).toBe('run.created');
    expect(seen[0]?.event).toMatchObject({ team_uid: 'team-1', run: { run_id: id, state: 'QUEUED', title: 'T' } });
  });

  it('emits run.state_changed with from and to on every change of state, and only then', async () => {
    const seen = recordEvents();
    const id = await createId({ prompt: 'p' });
    await driveTo(h.handler.service, id, 'SUCCEEDED');
    await h.call('POST', `/agent/runs/${id}/followups`, { body: { message: 'again' } });
    await h.call('POST', `/agent/runs/${id}/followups`, { body: { message: 'steer' } }); // QUEUED stays QUEUED
    await h.call('POST', `/agent/runs/${id}/cancel`);
    await h.call('POST', `/agent/runs/${id}/cancel`); // refused: nothing
    await h.call('POST', `/agent/runs/${id}/followups`, { body: { message: 'no' } }); // refused: nothing
    const changes = seen.filter((s) => s.name === 'run.state_changed').map((s) => s.event as AgentRunEventMap['run.state_changed'][0]);
    expect(changes.map((c) => [c.from, c.to])).toEqual([
      ['QUEUED', 'CLAIMED'],
      ['CLAIMED', 'INPROGRESS'],
      ['INPROGRESS', 'SUCCEEDED'],
      ['SUCCEEDED', 'QUEUED'],
      ['QUEUED', 'CANCELLED'],
    ]);
    for (const c of changes) {
      expect(c.run.state).toBe(c.to);
      expect(c.team_uid).toBe('team-1');
    }
    const followups = seen.filter((s) => s.name === 'run.followup').map((s) => s.event as AgentRunEventMap['run.followup'][0]);
    expect(followups.map((f) => [f.message, f.run.state])).toEqual([
      ['again', 'QUEUED'],
      ['steer', 'QUEUED'],
    ]);
    const stored = await h.store.runs.listFollowups(id);
    expect(followups.map((f) => f.followup_id)).toEqual(stored.map((f) => f.id));
  });

  it('emits nothing on an idempotent replay', async () => {
    const seen = recordEvents();
    const headers = { 'idempotency-key': 'k-events' };
    const id = (await create({ prompt: 'p' }, headers)).body.run_id;
    await create({ prompt: 'p' }, headers);
    await driveTo(h.handler.service, id, 'FAILED');
    const before = seen.length;
    const f = { body: { message: 'retry' }, headers: { 'idempotency-key': 'k-f' } };
    expect((await h.call('POST', `/agent/runs/${id}/followups`, f)).status).toBe(200);
    expect((await h.call('POST', `/agent/runs/${id}/followups`, f)).headers.get('idempotent-replayed')).toBe('true');
    const c = { headers: { 'idempotency-key': 'k-c' } };
    expect((await h.call('POST', `/agent/runs/${id}/cancel`, c)).status).toBe(200);
    expect((await h.call('POST', `/agent/runs/${id}/cancel`, c)).headers.get('idempotent-replayed')).toBe('true');
    expect(seen.filter((s) => s.name === 'run.created')).toHaveLength(1);
    expect(seen.slice(before).map((s) => s.name)).toEqual(['run.state_changed', 'run.followup', 'run.state_changed']);
  });
});

// ─────────────────────────────────────────────── idempotency

describe('idempotency', () => {
  it('replays the first response for the same key and body, creating nothing new', async () => {
    const headers = { 'idempotency-key': 'create-1' };
    const first = await create({ prompt: 'once', config: { name: 'n' } }, headers);
    h.clock.advance(1000);
    // key order does not matter: the body is compared canonically
    const again = await create({ config: { name: 'n' }, prompt: 'once' }, headers);
    expect(again.body).toEqual(first.body);
    expect(again.res.headers.get('idempotent-replayed')).toBe('true');
    expect(first.res.headers.get('idempotent-replayed')).toBeNull();
    expect(await listAll()).toHaveLength(1);
  });

  it('answers 409 idempotency_conflict for the same key with another body', async () => {
    const headers = { 'idempotency-key': 'create-2' };
    await create({ prompt: 'first' }, headers);
    const res = await h.call('POST', '/agent/run', { body: { prompt: 'second' }, headers });
    expect(res.headers.get('x-should-retry')).toBe('false');
    await expectProblem(res, 409, 'idempotency_conflict');
    expect(await listAll()).toHaveLength(1);
  });

  it('treats the same key on another endpoint as a different request (409)', async () => {
    const headers = { 'idempotency-key': 'shared' };
    const id = (await create({ prompt: 'p' }, headers)).body.run_id;
    await expectProblem(await h.call('POST', `/agent/runs/${id}/cancel`, { headers }), 409, 'idempotency_conflict');
    expect((await getRun(id)).state).toBe('QUEUED');
  });

  it('keeps keys per principal', async () => {
    const headers = { 'idempotency-key': 'same-key' };
    const mateKey = await h.keyFor(testPrincipal({ uid: 'user-2' }));
    const otherKey = await h.keyFor(testPrincipal({ uid: 'user-1', team_uid: 'team-2' }));
    const a = await create({ prompt: 'p' }, headers);
    const b = await h.json<{ run_id: string }>('POST', '/agent/run', { body: { prompt: 'p' }, headers, key: mateKey });
    const c = await h.json<{ run_id: string }>('POST', '/agent/run', { body: { prompt: 'different' }, headers, key: otherKey });
    expect(b.status).toBe(200);
    expect(c.status).toBe(200);
    expect(b.res.headers.get('idempotent-replayed')).toBeNull();
    expect(c.res.headers.get('idempotent-replayed')).toBeNull();
    expect(new Set([a.body.run_id, b.body.run_id, c.body.run_id]).size).toBe(3);
  });

  it('replays a cancel with 200 and the run id although the run is now CANCELLED', async () => {
    const id = await createId({ prompt: 'p' });
    const headers = { 'idempotency-key': 'cancel-1' };
    const first = await h.call('POST', `/agent/runs/${id}/cancel`, { headers });
    expect(first.status).toBe(200);
    const again = await h.call('POST', `/agent/runs/${id}/cancel`, { headers });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await again.text()).toBe(id);
    // without the key, the cancel is refused
    await expectProblem(await h.call('POST', `/agent/runs/${id}/cancel`), 400);
  });

  it('does not remember a refused write', async () => {
    const id = await createId({ prompt: 'p' });
    await driveTo(h.handler.service, id, 'CANCELLED');
    const headers = { 'idempotency-key': 'f-1' };
    await expectProblem(await h.call('POST', `/agent/runs/${id}/followups`, { body: { message: 'x' }, headers }), 409, 'conflict');
    await expectProblem(await h.call('POST', `/agent/runs/${id}/followups`, { body: { message: 'x' }, headers }), 409, 'conflict');
  });

  it('replays a follow-up without storing it twice', async () => {
    const id = await createId({ prompt: 'p' });
    await driveTo(h.handler.service, id, 'SUCCEEDED');
    const o = { body: { message: 'go on' }, headers: { 'idempotency-key': 'f-2' } };
    const first = await h.json('POST', `/agent/runs/${id}/followups`, o);
    await driveTo(h.handler.service, id, 'CANCELLED');
    const again = await h.json('POST', `/agent/runs/${id}/followups`, o);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.body).toEqual({ run_id: id, state: 'QUEUED' });
    expect(await h.store.runs.listFollowups(id)).toHaveLength(1);
  });

  it('makes concurrent requests with one key create one run', async () => {
    const headers = { 'idempotency-key': 'race' };
    const results = await Promise.all(Array.from({ length: 5 }, () => create({ prompt: 'p' }, headers)));
    expect(new Set(results.map((r) => r.body.run_id)).size).toBe(1);
    expect(results.filter((r) => r.res.headers.get('idempotent-replayed') === 'true')).toHaveLength(4);
    expect(await listAll()).toHaveLength(1);
  });

  it('forgets keys after the TTL (24 h by default)', async () => {
    const headers = { 'idempotency-key': 'ttl' };
    const first = await create({ prompt: 'p' }, headers);
    h.clock.advance(DEFAULT_IDEMPOTENCY_TTL_MS - 1);
    const replayed = await create({ prompt: 'p' }, headers);
    expect(replayed.body.run_id).toBe(first.body.run_id);
    h.clock.advance(1);
    const fresh = await create({ prompt: 'p' }, headers);
    expect(fresh.body.run_id).not.toBe(first.body.run_id);
    expect(fresh.res.headers.get('idempotent-replayed')).toBeNull();
    // an expired key may even carry another body now
    h.clock.advance(DEFAULT_IDEMPOTENCY_TTL_MS);
    expect((await create({ prompt: 'other' }, headers)).res.headers.get('idempotent-replayed')).toBeNull();
    expect(await listAll()).toHaveLength(3);
  });

  it('honours a configured TTL', async () => {
    h = await setup({ idempotencyTtlMs: 1000 });
    const headers = { 'idempotency-key': 'short' };
    const first = await create({ prompt: 'p' }, headers);
    h.clock.advance(999);
    expect((await create({ prompt: 'p' }, headers)).body.run_id).toBe(first.body.run_id);
    h.clock.advance(1);
    expect((await create({ prompt: 'p' }, headers)).body.run_id).not.toBe(first.body.run_id);
  });

  it('works the same through the service directly', async () => {
    const service = h.handler.service;
    const idempotency = { key: 'svc', fingerprint: 'fp' };
    const a = await service.create(h.principal, { prompt: 'p' }, { idempotency });
    const b = await service.create(h.principal, { prompt: 'p' }, { idempotency });
    expect(a.replayed).toBe(false);
    expect(b).toEqual({ ...a, replayed: true });
    await expect(service.create(h.principal, { prompt: 'p' }, { idempotency: { key: 'svc', fingerprint: 'other' } })).rejects.toMatchObject(
      {
        code: 'idempotency_conflict',
        status: 409,
      },
    );
  });
});

describe('states', () => {
  it('every state is reachable through the service and visible through the API', async () => {
    for (const state of RUN_STATES) {
      const id = await createId({ prompt: state });
      await driveTo(h.handler.service, id, state);
      expect((await getRun(id)).state).toBe(state);
    }
  });
});

describe('maps and objects in a run request', () => {
  it.each([
    ['an MCP server named __proto__', { prompt: 'x', config: { mcp_servers: JSON.parse('{"__proto__":{"url":"https://a.example"}}') } }],
    ['an MCP server named constructor', { prompt: 'x', config: { mcp_servers: { constructor: { url: 'https://a.example' } } } }],
    ['an env key named __proto__', { prompt: 'x', config: { mcp_servers: { s: { command: 'c', env: JSON.parse('{"__proto__":"x"}') } } } }],
    ['an array as config', { prompt: 'x', config: [] }],
    ['an array as an MCP server', { prompt: 'x', config: { mcp_servers: { s: [] } } }],
  ])('refuses %s instead of dropping it', async (_, body) => {
    const handler = createAgentRunHandler({ store: createMemoryStore() });
    await expect(handler.service.create(testPrincipal(), body)).rejects.toMatchObject({ code: 'invalid_request' });
    expect((await handler.service.list(testPrincipal(), {})).runs).toHaveLength(0);
  });

  it('treats /agent/run and /agent/runs as one request for an Idempotency-Key', async () => {
    const store = createMemoryStore();
    const handler = createAgentRunHandler({ store });
    const key = await createApiKey(store.apiKeys, testPrincipal());
    const post = (path: string) =>
      handler(
        new Request(`http://x/api/v1${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'idempotency-key': 'alias-1' },
          body: JSON.stringify({ prompt: 'same' }),
        }),
      );
    const first = await post('/agent/run');
    const second = await post('/agent/runs');
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await second.json()).toEqual(await first.json());
  });
});
