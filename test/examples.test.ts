import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureAppBuilt } from '../packages/dashboard/scripts/build-app.js';
import { watchOutput } from './support/child-output.js';
import { freePort } from './support/free-port.js';

// The embedding examples are files, shown exactly where the docs show them (Express in the README,
// Fastify in docs/embedding.md), and each runs as written: the key it prints can use
// the run API and set up a webhook whose printed URL starts a run. And with no hashing option
// given, a signature webhook is verified by node:crypto (docs/signatures.md, "Hashing"): the child
// runs with a preload that reports every node:crypto createHmac call.
const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** Each example, and the page that shows it whole. */
const EXAMPLES = [
  { name: 'express', page: 'README.md' },
  { name: 'fastify', page: 'docs/embedding.md' },
] as const;
const COUNT_HMAC = './test/support/count-hmac.mjs';
/** The ingress's largest body (docs/webhooks.md): 256 KB. */
const MAX_BODY = 262_144;

// The examples mount the dashboard, whose app a fresh clone has not built yet.
beforeAll(() => ensureAppBuilt(), 60_000);

describe.each(EXAMPLES)('examples/$name.mjs', ({ name, page }) => {
  const file = `examples/${name}.mjs`;
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill('SIGKILL');
    child = undefined;
  });

  it(`is shown in ${page} exactly`, () => {
    const shown = readFileSync(`${ROOT}${page}`, 'utf8');
    expect(shown).toContain(`\`\`\`js\n${readFileSync(`${ROOT}${file}`, 'utf8')}\`\`\``);
  });

  it('runs as written: run API, factory, webhook, automation, a delivery to the printed ingress_url starts a run, a run’s session_link opens its dashboard page, and node:crypto verifies a 256 KB GitHub signature', async () => {
    const port = await freePort();
    // The agentrun-source condition resolves the @agentrun/* imports to the sources (tsx runs them), as in the other tests.
    child = spawn(process.execPath, ['--conditions=agentrun-source', '--import', 'tsx', '--import', COUNT_HMAC, file], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(port), AGENTRUN_SECRET_KEY: randomBytes(32).toString('base64') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = watchOutput(child);
    const [api, key] = (await output.next(/run API at (\S+), key (\S+)/)) as [string, string];
    // The dashboard beside the API, under the same prefix (docs/dashboard.md).
    const [dashboard] = (await output.next(/dashboard at (\S+)/)) as [string];
    const page = await fetch(`${dashboard}/runs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('data-base-path="/agents/dashboard"');
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
    // Once started, the run's session_link is its page in the dashboard under the public URL (docs/embedding.md, "Session links").
    await expect
      .poll(async () => (await call('GET', `/agent/runs/${run.run_id}`)).session_link, { timeout: 10_000 })
      .toBe(`http://localhost:${port}/agents/dashboard/runs/${run.run_id}`);
    const runPage = await fetch(`http://localhost:${port}/agents/dashboard/runs/${run.run_id}`);
    expect(runPage.status).toBe(200);
    expect(await runPage.text()).toContain('data-base-path="/agents/dashboard"');
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
    const hello = await fetch(api.replace(/\/agents\/api\/v1$/, '/hello'));
    expect(await hello.text()).toBe('ok');
    // agentrun's probes at its mount point (docs/operations.md, "Health").
    const ready = await fetch(api.replace(/\/api\/v1$/, '/readyz'));
    expect(ready.status, await ready.clone().text()).toBe(200);

    // A GitHub-signed webhook (docs/management-api.md), and a body of the largest size signed as GitHub does.
    const providerSecret = randomBytes(20).toString('hex');
    const github = await call('POST', `/factories/${factory.uid}/webhooks`, {
      name: 'GitHub',
      auth_mode: 'signature',
      signature_scheme: 'github',
      provider_secret: providerSecret,
      delivery_id_header: 'X-GitHub-Delivery',
    });
    const prefix = '{"action":"opened","padding":"';
    const body = `${prefix}${'x'.repeat(MAX_BODY - prefix.length - 2)}"}`;
    expect(Buffer.byteLength(body)).toBe(MAX_BODY);
    const deliver = (signature: string) =>
      fetch(github.ingress_url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'pull_request',
          'x-github-delivery': randomUUID(),
          'x-hub-signature-256': `sha256=${signature}`,
        },
        body,
      });
    expect(hmacCalls(output.text()), 'createHmac before any signed delivery').toBe(0);

    const signed = await deliver(createHmac('sha256', providerSecret).update(body).digest('hex'));
    expect(signed.status, await signed.clone().text()).toBe(202);
    await output.next(/count-hmac: createHmac call 1\n/);
    // A wrong signature is refused, through the same node:crypto HMAC: the check really runs.
    const forged = await deliver(createHmac('sha256', 'not the secret').update(body).digest('hex'));
    expect(forged.status, await forged.clone().text()).toBe(401);
    await output.next(/count-hmac: createHmac call 2\n/);
    expect(hmacCalls(output.text())).toBe(2);
  }, 30_000);
});

/** How many node:crypto createHmac calls the child's preload has reported in `output`. */
const hmacCalls = (output: string) => output.match(/count-hmac: createHmac call \d+\n/g)?.length ?? 0;
