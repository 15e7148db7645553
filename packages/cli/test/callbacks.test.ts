import type { ReferenceServer } from '@agentrun/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliJson, envFor, startServer } from './support.js';

// `agentrun callbacks …` (docs/cli.md, "callbacks …") against a reference server whose callbacks
// go to a sender that records them (no network).

const sent: { url: string; id: string }[] = [];
let server: ReferenceServer;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startServer({
    callbacks: {
      allowPrivateAddresses: true,
      sender: {
        async send(r) {
          sent.push({ url: r.url, id: r.headers['webhook-id'] as string });
          return { status: 200 };
        },
      },
    },
  });
  env = envFor(server);
});
afterAll(() => server?.close({ graceMs: 0 }));

/** The endpoint's log once `attempts` attempts are logged and none is pending (the server's worker dispatches too). */
async function delivered(id: string, attempts: number) {
  for (;;) {
    await server.agentrun.maintenance.runAll();
    const log = await cliJson<{ deliveries: { id: string; status: string; attempts: unknown[] }[] }>(['callbacks', 'deliveries', id], {
      env,
    });
    const count = log.deliveries.reduce((n, d) => n + d.attempts.length, 0);
    if (count >= attempts && log.deliveries.every((d) => d.status !== 'pending')) return log;
  }
}

describe('agentrun callbacks', () => {
  it('create prints the secret once; list, disable, enable, deliveries, resend, rotate-secret, delete', async () => {
    const created = await cliJson<{ callback: { id: string }; secret: string }>(
      ['callbacks', 'create', 'https://hooks.example.com/in', '--event', 'run.created'],
      { env },
    );
    expect(created.secret).toMatch(/^whsec_/);
    const id = created.callback.id;
    expect((await cli(['callbacks', 'list'], { env })).stdout).toContain('https://hooks.example.com/in');
    expect((await cli(['callbacks', 'create', 'ftp://nope'], { env })).stderr).toMatch(/http or https/);

    expect((await cli(['callbacks', 'disable', id], { env })).code).toBe(0);
    expect((await cliJson<{ enabled: boolean }[]>(['callbacks', 'list'], { env }))[0]?.enabled).toBe(false);
    expect((await cli(['callbacks', 'enable', id], { env })).code).toBe(0);

    expect((await cli(['run', 'hello'], { env })).code).toBe(0);
    const page = await delivered(id, 1);
    expect(page.deliveries.map((d) => d.status)).toEqual(['succeeded']);
    const deliveryId = page.deliveries[0]?.id as string;
    expect(sent.map((s) => s.id)).toEqual([deliveryId]);

    expect((await cli(['callbacks', 'resend', id, deliveryId], { env })).stdout).toContain(deliveryId);
    await delivered(id, 2);
    expect(sent.map((s) => s.id)).toEqual([deliveryId, deliveryId]);
    expect((await cli(['callbacks', 'deliveries', id, '--limit', '0'], { env })).code).toBe(2);

    expect((await cli(['callbacks', 'rotate-secret', id], { env })).stdout).toMatch(/secret:\s+whsec_/);
    expect((await cli(['callbacks', 'delete', id], { env })).code).toBe(0);
    expect((await cli(['callbacks', 'list'], { env })).stderr).toContain('No callbacks.');
  });
});
