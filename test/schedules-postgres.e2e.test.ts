import type { ReferenceServer } from '@agentrun/server';
import OzAPI, { BadRequestError, NotFoundError } from 'oz-agent-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PostgresReferenceServer, postgresReachable, startPostgresReferenceServer } from './support/postgres-server.js';

// Both published clients' schedule calls against the reference server on Postgres (docs/schedules.md):
// the TypeScript `oz-agent-sdk` itself, and the Python one's requests as it writes them (bodies in
// the order of resources/agent/schedules.py, `Content-Length: 0` on a POST without content;
// test/python-client.e2e.test.ts does the same on the memory store, byte for byte).
// The server CI and developer machines have (test/support/postgres-server.ts), in a schema of this
// file's own, dropped at the end.
let pgServer: PostgresReferenceServer;
let server: ReferenceServer;
/** Outside CI, a machine without the server skips this file (CI=true fails it). */
const reachable = await postgresReachable('schedules-postgres.e2e');
beforeAll(async () => {
  if (!reachable) return;
  pgServer = await startPostgresReferenceServer('schedules_clients', { pollIntervalMs: 50 });
  server = pgServer.server;
});
afterAll(async () => {
  if (!reachable) return;
  await pgServer?.close();
});

const python = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, json?: unknown) => {
  const body = json === undefined ? '' : JSON.stringify(json);
  const res = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: {
      Accept: 'application/json',
      ...(method === 'GET' ? {} : { 'Content-Type': 'application/json' }),
      'User-Agent': 'OzAPI/Python 0.16.0',
      'X-Stainless-Lang': 'python',
      Authorization: `Bearer ${server.apiKey}`,
    },
    ...(method === 'GET' ? {} : { body }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
};

describe.runIf(reachable)('the published clients’ schedule calls on Postgres', () => {
  it('TypeScript: create, retrieve, update, list, pause, resume, delete', async () => {
    const client = new OzAPI({ apiKey: server.apiKey, baseURL: `${server.url}/api/v1`, maxRetries: 0 });
    const created = await client.agent.schedules.create({
      cron_schedule: '0 9 * * *',
      name: 'TS on Postgres',
      prompt: 'review',
      enabled: true,
    });
    expect(created).toMatchObject({ name: 'TS on Postgres', enabled: true, history: { last_ran: null, next_run: expect.any(String) } });
    expect(await client.agent.schedules.retrieve(created.id)).toEqual(created);
    expect(
      await client.agent.schedules.update(created.id, { cron_schedule: '0 10 * * *', enabled: true, name: 'TS later', prompt: 'r' }),
    ).toMatchObject({
      cron_schedule: '0 10 * * *',
      name: 'TS later',
    });
    expect((await client.agent.schedules.list()).schedules.map((s) => s.id)).toContain(created.id);
    expect(await client.agent.schedules.pause(created.id)).toMatchObject({ enabled: false, history: { next_run: null } });
    expect(await client.agent.schedules.resume(created.id)).toMatchObject({ enabled: true });
    expect(await client.agent.schedules.delete(created.id)).toEqual({ success: true });
    await expect(client.agent.schedules.retrieve(created.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.agent.schedules.create({ cron_schedule: '* * *', name: 'x', prompt: 'y' })).rejects.toBeInstanceOf(BadRequestError);
  });

  it('Python: create, retrieve, update, list, pause, resume, delete', async () => {
    const created = await python('POST', '/agent/schedules', {
      cron_schedule: '30 7 * * 1-5',
      name: 'Python on Postgres',
      enabled: true,
      mode: 'normal',
      prompt: 'triage',
      team: true,
    });
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    expect((await python('GET', `/agent/schedules/${id}`)).json).toEqual(created.json);
    const updated = await python('PUT', `/agent/schedules/${id}`, { cron_schedule: '30 8 * * 1-5', enabled: true, name: 'Python later' });
    expect(updated).toMatchObject({ status: 200, json: { cron_schedule: '30 8 * * 1-5', name: 'Python later', prompt: 'triage' } });
    expect(((await python('GET', '/agent/schedules')).json.schedules as { id: string }[]).map((s) => s.id)).toContain(id);
    expect(await python('POST', `/agent/schedules/${id}/pause`)).toMatchObject({ status: 200, json: { enabled: false } });
    expect(await python('POST', `/agent/schedules/${id}/resume`)).toMatchObject({ status: 200, json: { enabled: true } });
    expect(await python('DELETE', `/agent/schedules/${id}`)).toEqual({ status: 200, json: { success: true } });
    expect((await python('GET', `/agent/schedules/${id}`)).status).toBe(404);
  });
});
