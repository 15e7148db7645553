import { spawn } from 'node:child_process';
import { createCipheriv, createHmac, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from './support/database.js';
import { type ServerProcess, useProcesses } from './support/processes.js';

// Secret-key rotation, as an operator does it (docs/operations.md,
// "Rotating the secret key"): signed webhooks (GitHub HMAC, secrets sealed at rest) receive a
// steady flow of deliveries while the key is rotated across reference server processes on one
// database, and two `npm start -- reseal-secrets` processes re-seal at once. Every delivery before,
// during and after is a 202 and logged Accepted: nothing lost, every signature verified.
// Skipped on PGlite (several processes share the database).
const db = await openTestDatabase('secret_rotation');
afterAll(() => db.close());
const SKIPPED = 'needs a PostgreSQL server: the reference server processes share its database';
if (!db.multiConnection) console.warn(`[secret-rotation-processes.test] skipped: ${SKIPPED}`);

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SERVER_MAIN = fileURLToPath(new URL('../../server/src/main.ts', import.meta.url));
const WATCHDOG = new URL('./support/parent-watchdog.ts', import.meta.url).href;

interface ResealOutput {
  sealing_key_id: string;
  scanned: number;
  resealed: number;
  already_current: number;
  changed_meanwhile: number;
  unopenable: unknown[];
}

/** `npm start -- reseal-secrets` as a process of its own: its one JSON line and its exit code. */
function resealProcess(secretKey: string): Promise<{ code: number | null; report: ResealOutput; output: string }> {
  const child = spawn(
    process.execPath,
    ['--conditions=agentrun-source', '--import', 'tsx', '--import', WATCHDOG, SERVER_MAIN, 'reseal-secrets'],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: db.url as string, AGENTRUN_DB_SCHEMA: db.schema, AGENTRUN_SECRET_KEY: secretKey },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(killer);
      const line = output.split('\n').find((l) => l.startsWith('{"sealing_key_id"'));
      if (!line) reject(new Error(`reseal-secrets printed no report (exit ${code}):\n${output}`));
      else resolve({ code, report: JSON.parse(line) as ResealOutput, output });
    });
  });
}

/** A value sealed in the format written before key ids (`v1.<iv>.<body>`), for a secret's slot. */
function sealV1(key: Buffer, value: string, slot: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(slot));
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `v1.${iv.toString('base64url')}.${body.toString('base64url')}`;
}

interface Hook {
  uid: string;
  secret: string;
  /** Deliveries sent to it. */
  sent: number;
  /** The delivery IDs its 202 answers gave. */
  accepted: string[];
}

describe.skipIf(!db.multiConnection)('rotating the secret key while signed deliveries flow', () => {
  const procs = useProcesses();
  const apiKey = `ar_secret-rotation-${randomBytes(8).toString('hex')}`;
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const server = (name: string, secretKey: string) =>
    procs.server({
      name,
      databaseUrl: db.url as string,
      schema: db.schema,
      apiKey,
      demoDurationMs: 20,
      pollIntervalMs: 1000,
      env: { AGENTRUN_SECRET_KEY: secretKey },
    });
  const api = async <T>(s: ServerProcess, method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${s.url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} through ${s.name}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };

  // Step 1 of the runbook: the new key first, the old one kept, in every process (b and c). The
  // processes start together, as a deployment's would; traffic reaches each only in its step.
  const both = `${newKey.toString('base64')},${oldKey.toString('base64')}`;
  let a: ServerProcess;
  let b: ServerProcess;
  let c: ServerProcess;
  let factory = '';
  beforeAll(async () => {
    [a, b, c] = await Promise.all([
      server('old-only', oldKey.toString('base64')),
      server('new-first-b', both),
      server('new-first-c', both),
    ]);
    factory = (await api<{ uid: string }>(a, 'POST', '/factories', { name: 'Acme' })).uid;
  }, 90_000);

  it('loses nothing: every delivery is a 202, logged Accepted, before, during and after two processes re-seal at once', async () => {
    // Twenty GitHub-signed webhooks; eight of their secrets rewritten in the old key-less format.
    const hooks: Hook[] = [];
    for (let i = 0; i < 20; i++) {
      const secret = randomBytes(16).toString('hex');
      const created = await api<{ webhook: { uid: string; secret_name: string } }>(a, 'POST', `/factories/${factory}/webhooks`, {
        name: `hook-${i}`,
        auth_mode: 'signature',
        signature_scheme: 'github',
        provider_secret: secret,
      });
      hooks.push({ uid: created.webhook.uid, secret, sent: 0, accepted: [] });
      if (i < 8) {
        const name = created.webhook.secret_name;
        const [row] = (
          await sql<{ team_uid: string }>`SELECT team_uid FROM ${db.table('team_secrets')} WHERE name = ${name}`.execute(db.db)
        ).rows;
        const slot = `${encodeURIComponent(row?.team_uid as string)}/${encodeURIComponent(name)}`;
        await sql`UPDATE ${db.table('team_secrets')} SET ciphertext = ${sealV1(oldKey, secret, slot)} WHERE name = ${name}`.execute(db.db);
      }
    }
    // Team secrets beside them, so the re-seal has pages to walk.
    for (let i = 0; i < 150; i++) await api(a, 'PUT', `/team/secrets/bulk-${String(i).padStart(3, '0')}`, { value: `v-${i}` });

    // The flow: two deliveries in flight at a time, round robin over the webhooks and the servers in `targets`.
    let targets: ServerProcess[] = [a];
    const answers: { status: number; server: string; body: string }[] = [];
    let flowing = true;
    let n = 0;
    const perHookCap = 55; // under the 60-a-minute delivery rate of each webhook
    const deliverOne = async () => {
      const i = n++;
      const hook = hooks[i % hooks.length] as Hook;
      if (hook.sent >= perHookCap) return false;
      const target = targets[i % targets.length] as ServerProcess;
      const body = JSON.stringify({ action: 'opened', n: i });
      hook.sent++;
      const signature = `sha256=${createHmac('sha256', hook.secret).update(body).digest('hex')}`;
      const res = await fetch(`${target.url}/webhooks/w/${hook.uid}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature, 'x-github-delivery': `gh-${i}` },
        body,
      });
      const text = await res.text();
      answers.push({ status: res.status, server: target.name, body: text });
      if (res.status === 202) hook.accepted.push((JSON.parse(text) as { delivery_id: string }).delivery_id);
      return true;
    };
    const lane = async () => {
      while (flowing && (await deliverOne())) await new Promise((r) => setTimeout(r, 40));
      lanesLeft--;
    };
    let lanesLeft = 2;
    const lanes = [lane(), lane()];
    const delivered = (count: number) =>
      new Promise<void>((resolve) => {
        const check = () => (answers.length >= count || !flowing || lanesLeft === 0 ? resolve() : setTimeout(check, 20));
        check();
      });

    try {
      await delivered(24); // before: the old key alone
      targets = [a, b, c];
      await delivered(answers.length + 24);
      targets = [b, c];
      await delivered(answers.length + 6);
      await a.stop();

      // Step 2: two re-seal processes at once, while deliveries flow. The process of step 3, which
      // holds only the new key, starts meanwhile; no delivery reaches it before the re-seal ends.
      const before = answers.length;
      const [r1, r2, d] = await Promise.all([resealProcess(both), resealProcess(both), server('new-only', newKey.toString('base64'))]);
      const during = answers.length - before;
      for (const r of [r1, r2]) {
        expect(r.code, r.output).toBe(0);
        expect(r.report.unopenable).toEqual([]);
        expect(r.report.resealed + r.report.already_current + r.report.changed_meanwhile).toBe(r.report.scanned);
        expect(r.report.scanned).toBe(170);
      }
      // Between them, every secret was re-sealed exactly once.
      expect(r1.report.resealed + r2.report.resealed).toBe(170);
      const newId = r1.report.sealing_key_id;
      expect(r2.report.sealing_key_id).toBe(newId);
      const stale = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${db.table('team_secrets')}
        WHERE ciphertext NOT LIKE ${`v2.${newId}.%`}`.execute(db.db);
      expect(stale.rows[0]?.n).toBe(0);

      // Step 3: the old key removed; a process holding only the new key verifies every webhook.
      targets = [b, c, d];
      await delivered(answers.length + 36);
      flowing = false;
      await Promise.all(lanes);

      expect(answers.filter((x) => x.status !== 202)).toEqual([]);
      expect(new Set(answers.map((x) => x.server))).toEqual(new Set(['old-only', 'new-first-b', 'new-first-c', 'new-only']));
      // Deliveries flowed while the re-seal ran, and the flow never ran dry (no webhook reached its cap).
      expect(during).toBeGreaterThan(0);
      expect(hooks.every((h) => h.sent < perHookCap)).toBe(true);
      // The log of every webhook holds exactly what was sent to it, each Accepted.
      for (const hook of hooks) {
        const log = await api<{ deliveries: { delivery_id: string; status: string }[] }>(
          d,
          'GET',
          `/factories/${factory}/webhooks/${hook.uid}/deliveries?limit=200`,
        );
        expect(hook.accepted).toHaveLength(hook.sent);
        expect(log.deliveries.map((e) => e.delivery_id).sort()).toEqual([...hook.accepted].sort());
        expect(new Set(log.deliveries.map((e) => e.status))).toEqual(new Set(['Accepted']));
      }
      // And a team secret reads back through the new-key process (the value itself is never returned).
      expect((await api<{ secrets: { name: string }[] }>(d, 'GET', '/team/secrets')).secrets).toHaveLength(170);
    } finally {
      flowing = false;
      await Promise.all(lanes);
    }
  }, 180_000);
});
