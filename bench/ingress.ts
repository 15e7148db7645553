import { type ChildProcess, fork } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { IngressServerReady, IngressTarget, IngressVariant } from './ingress-server.js';
import { ingressTelemetryGroup } from './ingress-telemetry.js';
import type { BenchGroup } from './run.js';

/**
 * Webhook deliveries per second through the whole ingress (bearer auth, a 1 KB JSON body, 10
 * automations per webhook, memory store, default hashing: node:crypto), mounted on Fastify and on Express, against a
 * bare route of the same framework that parses the same JSON and answers 202. Each server runs in
 * a child process of its own; autocannon drives it from this one with the same connections and
 * duration, after a warm-up. Every delivery carries a distinct counter, so none is a Duplicate.
 *
 * Knobs (environment): INGRESS_BENCH_SECONDS (default 10), INGRESS_BENCH_WARMUP (2),
 * INGRESS_BENCH_CONNECTIONS (10), INGRESS_BENCH_PROF=<dir> (write a `--cpu-prof` of each agentrun
 * server there).
 */

const SECONDS = Number(process.env.INGRESS_BENCH_SECONDS ?? 10);
const WARMUP = Number(process.env.INGRESS_BENCH_WARMUP ?? 2);
const CONNECTIONS = Number(process.env.INGRESS_BENCH_CONNECTIONS ?? 10);
const PROFILE_DIR = process.env.INGRESS_BENCH_PROF;
const SERVER = fileURLToPath(new URL('./ingress-server.ts', import.meta.url));

/** A `pull_request`-shaped body of about 1 KB; `n` makes every delivery distinct. */
export function bodyTemplate(): (n: number) => string {
  const event = {
    action: 'opened',
    number: 0,
    pull_request: {
      title: 'Fix the flaky retry test',
      state: 'open',
      draft: false,
      base: { ref: 'main', sha: 'a'.repeat(40) },
      head: { ref: 'fix/retry', sha: 'b'.repeat(40) },
      html_url: 'https://github.com/acme/api/pull/1',
      body: '',
    },
    repository: { id: 1296269, full_name: 'acme/api', private: false, default_branch: 'main' },
    sender: { login: 'octocat', id: 1, type: 'User' },
  };
  const [before, after] = JSON.stringify(event).split('"number":0') as [string, string];
  const pad = 'x'.repeat(Math.max(0, 1024 - before.length - after.length - '"number":'.length - 6));
  const withPad = after.replace('"body":""', `"body":"${pad}"`);
  return (n) => `${before}"number":${n}${withPad}`;
}

interface Measured {
  perSecond: number;
  p99Ms: number;
  /** Server CPU per request (user + system), in µs; NaN where /proc is not there to tell. */
  cpuUs: number;
  non2xx: number;
  errors: number;
  bodyBytes: number;
}

export async function startServer(
  variant: IngressVariant,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ child: ChildProcess; ready: IngressServerReady }> {
  const execArgv = ['--conditions=agentrun-source', '--import', 'tsx'];
  if (PROFILE_DIR && (variant.endsWith('agentrun') || variant === 'fastify-postgres'))
    execArgv.push('--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`);
  const child = fork(SERVER, [variant], { execArgv, env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await new Promise<IngressServerReady>((resolve, reject) => {
    child.once('message', (message) => resolve(message as IngressServerReady));
    child.once('exit', (code) => reject(new Error(`${variant} server exited with ${code} before it was ready`)));
  });
  return { child, ready };
}

export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.send('stop');
  await exited;
}

const keys = new Map<string, Buffer>();

/**
 * The headers of delivery `n` to `target`: its bearer token, or for a Standard Webhooks webhook
 * (IngressTarget's `secret`) a signature of `body` under an id distinct per delivery. Signed here
 * with node:crypto, not core's `signStandardWebhooks`: autocannon's `setupRequest` is synchronous.
 */
export function deliveryHeaders(target: IngressTarget, n: number, body: string): Record<string, string> {
  if (target.secret === undefined) return { 'content-type': 'application/json', authorization: target.authorization };
  let key = keys.get(target.secret);
  if (!key) {
    key = Buffer.from(target.secret.slice(target.secret.indexOf('_') + 1), 'base64');
    keys.set(target.secret, key);
  }
  const id = `msg_${n}`;
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}

export function load(
  port: number,
  targets: IngressTarget[],
  seconds: number,
  counter: { n: number },
  connections = CONNECTIONS,
): Promise<autocannon.Result> {
  const body = bodyTemplate();
  return autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => {
          const n = counter.n++;
          const target = targets[n % targets.length] as IngressTarget;
          const text = body(n);
          return { ...request, path: target.path, headers: deliveryHeaders(target, n, text), body: text };
        },
      },
    ],
  });
}

async function measure(variant: IngressVariant): Promise<Measured & { automations: number; webhooks: number }> {
  const { child, ready } = await startServer(variant);
  try {
    // Bare routes get as many distinct paths as agentrun has webhooks, so both sides route alike.
    const targets =
      ready.automations === 0
        ? Array.from({ length: 1000 }, (_, i) => ({ path: `/webhooks/w/bare-${i}`, authorization: 'Bearer bare' }))
        : ready.targets;
    const counter = { n: 0 };
    if (WARMUP > 0) await load(ready.port, targets, WARMUP, counter);
    const before = await cpuSeconds(child.pid);
    const result = await load(ready.port, targets, SECONDS, counter);
    const after = await cpuSeconds(child.pid);
    return {
      perSecond: result.requests.average,
      p99Ms: result.latency.p99,
      cpuUs: ((after - before) * 1e6) / result.requests.total,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
      bodyBytes: bodyTemplate()(0).length,
      automations: ready.automations,
      webhooks: ready.automations === 0 ? 0 : ready.targets.length,
    };
  } finally {
    await stopServer(child);
  }
}

/**
 * User + system CPU seconds a process has used, from /proc (Linux); NaN elsewhere. The ratio says
 * how fast; this says what a request costs the server, which the client's own limits cannot blur.
 */
export async function cpuSeconds(pid: number | undefined): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at the state, field 3: utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}
/** USER_HZ: 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS = 100;

export const ingressGroup: BenchGroup = {
  name: 'ingress',
  description: `webhook deliveries/s through the ingress vs a bare JSON route (autocannon, ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${SECONDS} s)`,
  async run() {
    const rows: Record<string, Measured & { automations: number; webhooks: number }> = {};
    for (const variant of ['fastify-bare', 'fastify-agentrun', 'express-bare', 'express-agentrun'] as const) {
      rows[variant] = await measure(variant);
    }
    console.table(
      Object.entries(rows).map(([variant, m]) => ({
        variant,
        'req/s': Math.round(m.perSecond),
        'p99 ms': m.p99Ms,
        'server CPU µs/req': Math.round(m.cpuUs),
        non2xx: m.non2xx,
        errors: m.errors,
        'body bytes': m.bodyBytes,
        webhooks: m.webhooks,
        automations: m.automations,
      })),
    );
    for (const [variant, m] of Object.entries(rows)) {
      if (m.non2xx > 0 || m.errors > 0) console.warn(`warning: ${variant} had ${m.non2xx} non-2xx answers and ${m.errors} errors`);
    }
    const r = rows as Record<IngressVariant, Measured>;
    return {
      'ingress.fastify_ratio': r['fastify-agentrun'].perSecond / r['fastify-bare'].perSecond,
      'ingress.express_ratio': r['express-agentrun'].perSecond / r['express-bare'].perSecond,
      'ingress.fastify_p99_ms': r['fastify-agentrun'].p99Ms,
      'ingress.express_p99_ms': r['express-agentrun'].p99Ms,
      'ingress.fastify_per_s': r['fastify-agentrun'].perSecond,
      'ingress.fastify_bare_per_s': r['fastify-bare'].perSecond,
      'ingress.express_per_s': r['express-agentrun'].perSecond,
      'ingress.express_bare_per_s': r['express-bare'].perSecond,
      'ingress.fastify_cpu_us': r['fastify-agentrun'].cpuUs,
      'ingress.fastify_bare_cpu_us': r['fastify-bare'].cpuUs,
      // What the OpenTelemetry instrumentation costs, without and with an SDK (ingress-telemetry.ts).
      ...(await ingressTelemetryGroup.run()),
    };
  },
};
