import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

// Issue 9, point 17: the README's embedding examples are files, and each runs as written: the
// key it prints can use the run API and set up a webhook whose printed URL starts a run.
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const EXAMPLES = ['express', 'fastify'] as const;

describe.each(EXAMPLES)('examples/%s.mjs', (name) => {
  const file = `examples/${name}.mjs`;
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill('SIGKILL');
    child = undefined;
  });

  it('is shown in the README exactly', () => {
    const readme = readFileSync(`${ROOT}README.md`, 'utf8');
    expect(readme).toContain(`\`\`\`js\n${readFileSync(`${ROOT}${file}`, 'utf8')}\`\`\``);
  });

  it('runs as written: run API, factory, webhook, automation, and a delivery to the printed ingress_url starts a run', async () => {
    // The agentrun-source condition resolves the @agentrun/* imports to the sources (tsx runs them), as in the other tests.
    child = spawn(process.execPath, ['--conditions=agentrun-source', '--import', 'tsx', file], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', AGENTRUN_SECRET_KEY: randomBytes(32).toString('base64') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const [api, key] = (await printed(child, /run API at (\S+), key (\S+)/)) as [string, string];
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${api}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      expect(res.status, `${method} ${path}: ${text}`).toBeLessThan(300);
      return JSON.parse(text);
    };

    const run = await call('POST', '/agent/run', { prompt: 'Fix the bug in auth.go' });
    expect(run).toMatchObject({ run_id: expect.any(String), state: 'QUEUED' });
    const factory = await call('POST', '/factories', { name: 'Acme' });
    const webhook = await call('POST', `/factories/${factory.uid}/webhooks`, { name: 'CI' });
    expect(webhook.ingress_url).toMatch(/\/agents\/webhooks\/w\//);
    await call('POST', `/factories/${factory.uid}/automations`, {
      name: 'Triage',
      prompt: 'Triage the event.',
      triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [webhook.webhook.uid] } }],
    });
    const delivered = await fetch(webhook.ingress_url, {
      method: 'POST',
      headers: { authorization: `Bearer ${webhook.secret}`, 'content-type': 'application/json' },
      body: '{"event":"push"}',
    });
    expect(delivered.status, await delivered.clone().text()).toBe(202);
    const runs = await call('GET', `/agent/runs?source=WEBHOOK&factory_uid=${factory.uid}`);
    expect(runs.runs).toHaveLength(1);
    const health = await fetch(api.replace(/\/agents\/api\/v1$/, '/health'));
    expect(await health.text()).toBe('ok');
  }, 30_000);
});

/** The groups of the first stdout line matching `pattern`; fails with the output after 20 s or an exit. */
function printed(child: ChildProcess, pattern: RegExp): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no line matching ${pattern} in 20 s:\n${out}`)), 20_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = pattern.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match.slice(1));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before printing ${pattern}:\n${out}`));
    });
  });
}
