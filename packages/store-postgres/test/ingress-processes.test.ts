import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from './support/database.js';
import { type ServerProcess, useProcesses } from './support/processes.js';
import { sleep, waitUntil } from './support/wait.js';

// The webhook ingress served by several reference server processes (`npm start`) on one
// database: duplicates and the delivery rate are exact across processes, and a server killed
// mid-accept leaves every delivery either accepted or not at all; an accepted one gets exactly
// its runs afterwards, from whichever server is alive (docs/webhooks.md, "When runs start").
// Skipped on PGlite (one in-process connection; no server for child processes).
const db = await openTestDatabase('ingress_processes');
afterAll(() => db.close());
const SKIPPED = 'needs a PostgreSQL server: the reference server processes share its database';
if (!db.multiConnection) console.warn(`[ingress-processes.test] skipped: ${SKIPPED}`);

interface LogEntry {
  delivery_id: string;
  status: string;
}
interface RunView {
  run_id: string;
  source: string;
  trigger?: { automation_id: string; webhook_uid: string; delivery_id: string };
}

describe.skipIf(!db.multiConnection)('webhook ingress across two reference server processes on one database', () => {
  const procs = useProcesses();
  const apiKey = `ar_ingress-processes-${randomBytes(8).toString('hex')}`;
  // The same sealing key for every process: without one, secrets are disabled on Postgres.
  const secretKey = randomBytes(32).toString('base64');
  const serverOptions = (name: string) => ({
    name,
    databaseUrl: db.url as string,
    schema: db.schema,
    apiKey,
    demoDurationMs: 20,
    pollIntervalMs: 1000,
    // A killed server's evaluation claims are taken over by another after this.
    env: { AGENTRUN_SECRET_KEY: secretKey, AGENTRUN_EVALUATION_LEASE_MS: '1500' },
  });
  let a: ServerProcess;
  let b: ServerProcess;
  let factory = '';

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
  /** A bearer-token webhook created through `server`, with `automations` automations without a filter. */
  const webhookWith = async (server: ServerProcess, automations: number) => {
    const created = await api<{ webhook: { uid: string }; secret: string }>(server, 'POST', `/factories/${factory}/webhooks`, {
      name: `hook-${randomBytes(3).toString('hex')}`,
      auth_mode: 'token',
    });
    const ids: string[] = [];
    for (let i = 0; i < automations; i++) {
      const automation = await api<{ id: string }>(server, 'POST', `/factories/${factory}/automations`, {
        name: `Triage ${i}`,
        prompt: 'Triage the event.',
        enabled: true,
        triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [created.webhook.uid] } }],
      });
      ids.push(automation.id);
    }
    return {
      uid: created.webhook.uid,
      automations: ids,
      at: (s: ServerProcess) => `${s.url}/webhooks/w/${created.webhook.uid}`,
      auth: { authorization: `Bearer ${created.secret}` },
    };
  };
  const log = async (server: ServerProcess, uid: string) =>
    (await api<{ deliveries: LogEntry[] }>(server, 'GET', `/factories/${factory}/webhooks/${uid}/deliveries?limit=200`)).deliveries;
  const runsOf = async (server: ServerProcess, uid: string) =>
    (await api<{ runs: RunView[] }>(server, 'GET', '/agent/runs?source=WEBHOOK&limit=500')).runs.filter(
      (r) => r.trigger?.webhook_uid === uid,
    );
  const count = <T>(items: T[]) => {
    const counts = new Map<T, number>();
    for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
    return counts;
  };

  beforeAll(async () => {
    [a, b] = (await Promise.all(['server-a', 'server-b'].map((name) => procs.server(serverOptions(name))))) as [
      ServerProcess,
      ServerProcess,
    ];
    factory = (await api<{ uid: string }>(a, 'POST', '/factories', { name: 'Acme' })).uid;
  }, 90_000);

  it('50 identical deliveries at once, 25 to each server: all 202, one Accepted, 49 Duplicate, one run', async () => {
    const hook = await webhookWith(a, 1);
    const body = '{"action":"opened","pull_request":{"number":42}}';
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => fetch(hook.at(i % 2 === 0 ? a : b), { method: 'POST', headers: hook.auth, body })),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(50).fill(202));
    const ids = await Promise.all(answers.map(async (r) => ((await r.json()) as { delivery_id: string }).delivery_id));

    const entries = await log(b, hook.uid);
    expect(entries).toHaveLength(50);
    expect(Object.fromEntries(count(entries.map((d) => d.status)))).toEqual({ Accepted: 1, Duplicate: 49 });
    expect(new Set(entries.map((d) => d.delivery_id))).toEqual(new Set(ids));
    const winner = entries.find((d) => d.status === 'Accepted')?.delivery_id;

    for (const server of [a, b]) {
      const runs = await runsOf(server, hook.uid);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({
        source: 'WEBHOOK',
        trigger: { automation_id: hook.automations[0], webhook_uid: hook.uid, delivery_id: winner },
      });
    }
  });

  it('the delivery rate is exact across processes: of 70 distinct deliveries at once, 60 are 202 and 10 are 429 with Retry-After', async () => {
    const hook = await webhookWith(b, 0);
    const answers = await Promise.all(
      Array.from({ length: 70 }, (_, i) =>
        fetch(hook.at(i % 2 === 0 ? a : b), { method: 'POST', headers: hook.auth, body: JSON.stringify({ n: i }) }),
      ),
    );
    expect(Object.fromEntries(count(answers.map((r) => r.status)))).toEqual({ 202: 60, 429: 10 });
    for (const limited of answers.filter((r) => r.status === 429)) {
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
      expect(await limited.json()).toMatchObject({ status: 429, error: 'rate_limited' });
    }
    // Both servers admitted some: the limit held across processes, not within one.
    const admittedBy = (parity: number) => answers.filter((r, i) => i % 2 === parity && r.status === 202).length;
    expect(admittedBy(0) + admittedBy(1)).toBe(60);
    expect(Math.min(admittedBy(0), admittedBy(1))).toBeGreaterThan(0);
    // 429s are not logged.
    const entries = await log(a, hook.uid);
    expect(entries.map((d) => d.status)).toEqual(Array(60).fill('Accepted'));
  });

  it('a server killed with SIGKILL mid-burst leaves no partial accept: every Accepted entry has its runs, every run its entry', async () => {
    const victim = await procs.server(serverOptions('server-victim'));
    const hook = await webhookWith(victim, 2);
    // 256 KB bodies: each accept writes the payload three times (log entry and two attachments),
    // so a good share of the server's time goes into those transactions.
    const filler = 'x'.repeat(250_000);
    const TOTAL = 60; // the rate limit: every one of them is admitted
    const CONCURRENCY = 12;
    const KILL_AFTER = 12;
    const answered: string[] = [];
    const otherAnswers: string[] = [];
    let failed = 0;
    let started = 0;
    let inFlightAtKill = -1;
    let killed = false;

    const kill = () => {
      if (killed) return;
      killed = true;
      inFlightAtKill = started - answered.length - failed;
      // The harness's pid is the server process itself (node --import tsx, no wrapper).
      process.kill(victim.pid as number, 'SIGKILL');
    };
    const sender = async () => {
      while (started < TOTAL) {
        const n = started++;
        let res: Response;
        let text: string;
        try {
          res = await fetch(hook.at(victim), {
            method: 'POST',
            headers: { ...hook.auth, 'x-burst-delivery-id': `burst-${n}` },
            body: JSON.stringify({ n, filler }),
          });
          text = await res.text();
        } catch {
          failed++; // the connection died with the server
          continue;
        }
        if (res.status !== 202) otherAnswers.push(`${res.status} ${text}`);
        else answered.push((JSON.parse(text) as { delivery_id: string }).delivery_id);
        if (answered.length >= KILL_AFTER) kill();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, sender));
    expect(await victim.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(otherAnswers).toEqual([]);
    expect(killed).toBe(true);
    // Killed mid-burst: requests were in flight, and some never got an answer.
    expect(inFlightAtKill).toBeGreaterThan(0);
    expect(failed).toBeGreaterThan(0);
    expect(answered.length).toBeLessThan(TOTAL);

    // Once the killed server's connections are gone (a COMMIT it sent just before dying lands
    // at once) and its evaluation leases have run out, B has evaluated every accepted delivery:
    // the log and the runs read through B no longer change.
    const snapshot = async () => {
      const entries = await log(b, hook.uid);
      const runs = await runsOf(b, hook.uid);
      return { entries, runs };
    };
    const previous = await settled(snapshot, hook.automations.length);
    const { entries, runs } = previous;
    expectExactRuns(entries, runs, hook.automations, answered);
  }, 30_000);

  /**
   * Poll `snapshot` until every accepted entry has `perDelivery` runs and nothing changes for
   * 300 ms; the last snapshot.
   */
  async function settled(snapshot: () => Promise<{ entries: LogEntry[]; runs: RunView[] }>, perDelivery: number) {
    let previous = await snapshot();
    await waitUntil(
      async () => {
        await sleep(300);
        const next = await snapshot();
        const accepted = next.entries.filter((d) => d.status === 'Accepted').length;
        const stable = next.entries.length === previous.entries.length && next.runs.length === previous.runs.length;
        previous = next;
        return stable && next.runs.length === accepted * perDelivery;
      },
      (done) => done,
      'every accepted delivery to have its runs, and the log and the runs to settle',
      20_000,
      0,
    );
    return previous;
  }

  /** Every 202 answered is Accepted in the log, and each Accepted entry has exactly one run per automation. */
  function expectExactRuns(entries: LogEntry[], runs: RunView[], automations: string[], answered: string[]) {
    // Distinct identities and no rejections: whatever reached the log was accepted.
    expect(entries.every((d) => d.status === 'Accepted')).toBe(true);
    const accepted = new Set(entries.map((d) => d.delivery_id));
    // Every 202 the client saw is in the log: an answer comes only after the commit.
    for (const id of answered) expect(accepted.has(id)).toBe(true);
    // Each accepted delivery has exactly one run per automation; no run lacks its log entry.
    const perDelivery = new Map<string, string[]>();
    for (const run of runs) {
      const deliveryId = run.trigger?.delivery_id as string;
      expect(accepted.has(deliveryId)).toBe(true);
      perDelivery.set(deliveryId, [...(perDelivery.get(deliveryId) ?? []), run.trigger?.automation_id as string]);
    }
    for (const id of accepted) expect(perDelivery.get(id)?.sort()).toEqual([...automations].sort());
    expect(runs).toHaveLength(accepted.size * automations.length);
    expect(accepted.size).toBeGreaterThanOrEqual(answered.length);
  }
});
