import { createApiKey } from '@agentrun/core';
import { makeRun } from '@agentrun/core/testing';
import type { ReferenceServer } from '@agentrun/server';
import type { PostgresStore } from '@agentrun/store-postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PostgresReferenceServer, postgresReachable, startPostgresReferenceServer } from './support/postgres-server.js';

// The Python client's conversation, factory, inbox and agent identity calls against the reference server on
// Postgres (docs/run-api.md): the requests as that client writes them (test/python-client.e2e.test.ts
// sends them byte for byte on the memory store, with every case). In a schema of this file's own,
// dropped at the end (test/support/postgres-server.ts).
let pgServer: PostgresReferenceServer;
let store: PostgresStore;
let server: ReferenceServer;
/** Outside CI, a machine without the server skips this file (CI=true fails it). */
const reachable = await postgresReachable('python-client-postgres.e2e');
beforeAll(async () => {
  if (!reachable) return;
  // Runs stay queued: the worker's demo runs take a minute, and the cases below store their own.
  pgServer = await startPostgresReferenceServer('python_calls', { pollIntervalMs: 50, demoDurationMs: 60_000 });
  ({ server, store } = pgServer);
});
afterAll(async () => {
  if (!reachable) return;
  await pgServer?.close();
});

/** A request as the Python client sends it; `key: null` is a public call (`security={}`). */
const python = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, json?: unknown, key: string | null = server.apiKey) => {
  const res = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: {
      Accept: 'application/json',
      ...(method === 'GET' ? {} : { 'Content-Type': 'application/json' }),
      'User-Agent': 'OzAPI/Python 0.16.0',
      'X-Stainless-Lang': 'python',
      ...(key === null ? {} : { Authorization: `Bearer ${key}` }),
    },
    ...(method === 'GET' ? {} : { body: json === undefined ? '' : JSON.stringify(json) }),
  });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: the answers are read field by field below.
  return { status: res.status, json: (text === '' ? undefined : JSON.parse(text)) as any };
};

describe.runIf(reachable)('the Python client’s conversation, factory, inbox and agent identity calls on Postgres', () => {
  it('conversations.check_redirect: a live session only for a conversation agentrun started', async () => {
    const team = server.principal.team_uid;
    const first = makeRun({ teamUid: team, state: 'SUCCEEDED', createdAt: '2031-01-01T00:00:00.000Z' });
    first.conversationId = first.id;
    const live = makeRun({
      teamUid: team,
      state: 'INPROGRESS',
      sessionId: 'sess-pg',
      conversationId: first.id,
      createdAt: '2031-01-01T00:00:01.000Z',
    });
    const named = makeRun({ teamUid: team, state: 'INPROGRESS', sessionId: 'sess-named', conversationId: 'conv-pg' });
    for (const run of [first, live, named]) await store.runs.create({ run, attachments: [] });
    expect(await python('GET', `/agent/conversations/${first.id}/redirect`, undefined, null)).toEqual({
      status: 200,
      json: { session_id: 'sess-pg' },
    });
    expect(await python('GET', '/agent/conversations/conv-pg/redirect', undefined, null)).toEqual({ status: 200, json: {} });
    const started = await python('POST', '/agent/run', { prompt: 'new' });
    expect((await python('GET', `/agent/runs/${started.json.run_id}`)).json.conversation_id).toBe(started.json.run_id);
  });

  it('factories.list/get, factories.runs.create', async () => {
    const made = await python('POST', '/factories', { name: 'PG factory', foreman_agent_identity_uid: 'fm-pg' });
    expect(made.status).toBe(201);
    const page = await python('GET', '/factory?limit=1&search=pg');
    expect(page.json).toMatchObject({
      factories: [{ uid: made.json.uid, name: 'PG factory', code_forge: 'NONE' }],
      page_info: { has_next_page: false },
    });
    expect((await python('GET', `/factory/${made.json.uid}`)).json).toMatchObject({ uid: made.json.uid, repositories: [] });
    const sent = await python('POST', `/factory/${made.json.uid}/runs`, { prompt: 'p', ticket_ref: 'linear:PG-1' });
    expect(sent.json).toEqual({
      factory_uid: made.json.uid,
      foreman_agent: 'fm-pg',
      run_id: expect.any(String),
      state: 'QUEUED',
      ticket_ref: 'linear:PG-1',
    });
    expect((await python('GET', `/agent/runs?factory_uid=${made.json.uid}`)).json.runs.map((r: { run_id: string }) => r.run_id)).toEqual([
      sent.json.run_id,
    ]);
  });

  it('factories.inbox: list, mark_read, mark_unread', async () => {
    const team = server.principal.team_uid;
    const person = { type: 'user' as const, uid: 'pg-person', team_uid: team };
    const key = await createApiKey(store.apiKeys, person);
    const factory = await python('POST', '/factories', { name: 'PG inbox' });
    const blocked = makeRun({ teamUid: team, state: 'BLOCKED', factoryUid: factory.json.uid, creator: { type: 'user', uid: person.uid } });
    await store.runs.create({ run: blocked, attachments: [] });
    const uid = `blocked:${blocked.id}`;
    const mine = async () => (await python('GET', '/factory-inbox', undefined, key)).json.items;
    expect(await mine()).toEqual([expect.objectContaining({ notification_uid: uid, is_read: false })]);
    expect((await python('POST', '/factory-inbox/notifications/read', { notification_uids: [uid, 'failed:none'] }, key)).json).toEqual({
      outcomes: [
        { notification_uid: uid, ok: true },
        { notification_uid: 'failed:none', ok: true },
      ],
    });
    expect(await mine()).toEqual([expect.objectContaining({ is_read: true })]);
    await python('POST', '/factory-inbox/notifications/unread', { notification_uids: [uid] }, key);
    expect(await mine()).toEqual([expect.objectContaining({ is_read: false })]);
    expect((await python('GET', '/factory-inbox?scope=team')).json.items).toEqual([
      expect.not.objectContaining({ is_read: expect.anything() }),
    ]);
  });

  it('agent_.create/list/update/delete: agent identities (migration 0021)', async () => {
    const made = await python('POST', '/agent/identities', { name: 'PG agent', base_model: 'm-1' });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({ name: 'PG agent', available: true, base_model: 'm-1', description: null, prompt: null });
    expect((await python('GET', '/agent/identities')).json.agents).toEqual([made.json]);
    const changed = await python('PUT', `/agent/identities/${made.json.uid}`, { description: 'Described', base_model: '' });
    expect(changed.json).toMatchObject({ uid: made.json.uid, name: 'PG agent', description: 'Described', base_model: null });
    expect(changed.json.created_at).toBe(made.json.created_at);
    expect((await python('DELETE', `/agent/identities/${made.json.uid}`)).status).toBe(204);
    expect((await python('GET', '/agent/identities')).json.agents).toEqual([]);
  });
});
