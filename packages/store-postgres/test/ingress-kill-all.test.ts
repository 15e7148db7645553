import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from './support/database.js';
import { type ServerProcess, useProcesses } from './support/processes.js';
import { sleep, waitUntil } from './support/wait.js';

// No accepted delivery is lost with its process: every reference server on the database killed with SIGKILL during a
// burst of deliveries, then one restarted: every delivery answered 202 is in the log, and every
// accepted delivery ends with exactly one run per automation, made by the restarted server from
// what the dead ones accepted but had not evaluated (docs/webhooks.md, "When runs start").
// A file of its own: no other server may share its schema.
const db = await openTestDatabase('ingress_kill_all');
afterAll(() => db.close());

interface LogEntry {
  delivery_id: string;
  status: string;
}
interface RunView {
  trigger?: { automation_id: string; webhook_uid: string; delivery_id: string };
}

describe.skipIf(!db.multiConnection)('every server killed after a burst, one restarted', () => {
  const procs = useProcesses();
  const apiKey = `ar_kill-all-${randomBytes(8).toString('hex')}`;
  const secretKey = randomBytes(32).toString('base64');
  const serverOptions = (name: string) => ({
    name,
    databaseUrl: db.url as string,
    schema: db.schema,
    apiKey,
    demoDurationMs: 20,
    pollIntervalMs: 1000,
    env: { AGENTRUN_SECRET_KEY: secretKey, AGENTRUN_EVALUATION_LEASE_MS: '1500' },
  });
  const api = async <T>(server: ServerProcess, method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${server.url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} through ${server.name}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  };

  it('each accepted delivery ends with exactly its runs', async () => {
    const servers = (await Promise.all(['burst-1', 'burst-2'].map((name) => procs.server(serverOptions(name))))) as ServerProcess[];
    const first = servers[0] as ServerProcess;
    const factory = (await api<{ uid: string }>(first, 'POST', '/factories', { name: 'Acme' })).uid;
    const created = await api<{ webhook: { uid: string }; secret: string }>(first, 'POST', `/factories/${factory}/webhooks`, {
      name: 'burst',
      auth_mode: 'token',
    });
    const uid = created.webhook.uid;
    const automations: string[] = [];
    for (let i = 0; i < 2; i++) {
      const automation = await api<{ id: string }>(first, 'POST', `/factories/${factory}/automations`, {
        name: `Triage ${i}`,
        prompt: 'Triage the event.',
        enabled: true,
        triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [uid] } }],
      });
      automations.push(automation.id);
    }

    // Three senders per server, 60 deliveries in all (the rate limit); every server is killed
    // once 40 are answered, with requests in flight and deliveries still being evaluated.
    const answered: string[] = [];
    let sent = 0;
    let killed = false;
    const killAll = () => {
      if (killed) return;
      killed = true;
      for (const server of servers) process.kill(server.pid as number, 'SIGKILL');
    };
    const sender = async (server: ServerProcess) => {
      while (sent < 60 && !killed) {
        const n = sent++;
        try {
          const res = await fetch(`${server.url}/webhooks/w/${uid}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${created.secret}`, 'x-burst-delivery-id': `all-${n}` },
            body: JSON.stringify({ n, filler: 'y'.repeat(50_000) }),
          });
          const text = await res.text();
          expect(res.status, text).toBe(202);
          answered.push((JSON.parse(text) as { delivery_id: string }).delivery_id);
        } catch (error) {
          if (!killed) throw error; // the connection died with the server
        }
        if (answered.length >= 40) killAll();
      }
    };
    await Promise.all(servers.flatMap((server) => [sender(server), sender(server), sender(server)]));
    killAll();
    for (const server of servers) expect(await server.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // What the dead servers left unevaluated (shown, not asserted: it depends on the timing).
    const left = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM ${db.table('deliveries')} WHERE evaluation_due_at IS NOT NULL`.execute(db.db);
    console.info(
      `[ingress-kill-all] ${answered.length} answered 202; ${left.rows[0]?.n} accepted deliveries awaiting evaluation at the kill`,
    );

    const restarted = await procs.server(serverOptions('burst-restarted'));
    let entries: LogEntry[] = [];
    let runs: RunView[] = [];
    let previous = -1;
    await waitUntil(
      async () => {
        await sleep(300);
        entries = (await api<{ deliveries: LogEntry[] }>(restarted, 'GET', `/factories/${factory}/webhooks/${uid}/deliveries?limit=200`))
          .deliveries;
        runs = (await api<{ runs: RunView[] }>(restarted, 'GET', '/agent/runs?source=WEBHOOK&limit=500')).runs.filter(
          (r) => r.trigger?.webhook_uid === uid,
        );
        const stable = runs.length === previous;
        previous = runs.length;
        return stable && runs.length === entries.length * automations.length;
      },
      (done) => done,
      'every accepted delivery to have its runs',
      20_000,
      0,
    );

    expect(entries.every((d) => d.status === 'Accepted')).toBe(true);
    const accepted = new Set(entries.map((d) => d.delivery_id));
    for (const id of answered) expect(accepted.has(id)).toBe(true);
    const perDelivery = new Map<string, string[]>();
    for (const run of runs) {
      const deliveryId = run.trigger?.delivery_id as string;
      expect(accepted.has(deliveryId)).toBe(true);
      perDelivery.set(deliveryId, [...(perDelivery.get(deliveryId) ?? []), run.trigger?.automation_id as string]);
    }
    for (const id of accepted) expect(perDelivery.get(id)?.sort()).toEqual([...automations].sort());
    expect(runs).toHaveLength(accepted.size * automations.length);
    // Nothing is left awaiting evaluation.
    const after = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM ${db.table('deliveries')} WHERE evaluation_due_at IS NOT NULL`.execute(db.db);
    expect(after.rows[0]?.n).toBe(0);
  }, 90_000);
});
