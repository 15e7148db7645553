import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { createAgentRunHandler, Store } from '@agentrun/core';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { deliveries } from './ingress-core.js';
import { agentrunHandler, evaluatorOf } from './ingress-server.js';
import type { BenchGroup } from './run.js';

/**
 * What the OpenTelemetry instrumentation (packages/core/src/telemetry) costs a delivery through
 * the core handler (the `ingress-core` workload: bearer auth, 1 KB bodies, 1,000 webhooks, 4 runs
 * a delivery, memory store, 10 in flight), three ways in one process:
 *
 * - `before`: core as it was before the instrumentation (the commit before telemetry/ was added,
 *   extracted with `git archive` into node_modules/.cache), the baseline;
 * - `no-sdk`: core now (copied there too, see `coreNow`), with `@opentelemetry/api` and no SDK: the host that does not want telemetry;
 * - `sdk`: core now, with an SDK MeterProvider (a reader that is never collected) and a
 *   BasicTracerProvider exporting every span to memory through a BatchSpanProcessor, as a
 *   production SDK exports (a SimpleSpanProcessor exports each span as it ends: about 30 µs a
 *   span on this machine, 4 times the span itself, measured apart).
 *
 * The machine is shared and noisy, so the variants alternate, round after round, in a rotating
 * order, and each cost is (variant's total / before's total) − 1 over all rounds, in this process's
 * CPU time (the wall time is shown too), with a bootstrap interval that says how sure it is.
 * Criterion: `no-sdk` costs at most 2 % of `ingress.core_us_per_delivery`.
 *
 * Knobs (environment): INGRESS_TELEMETRY_ROUNDS (30), INGRESS_TELEMETRY_DELIVERIES (1,000 a round
 * and variant, after one warm-up round). Short rounds, many of them: a pair measured close in time
 * sees the same machine.
 */
const ROUNDS = Number(process.env.INGRESS_TELEMETRY_ROUNDS ?? 30);
const PER_ROUND = Number(process.env.INGRESS_TELEMETRY_DELIVERIES ?? 1000);
const CRITERION = 0.02;
const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');

type Create = typeof createAgentRunHandler;

const cacheDir = (name: string) => join(REPO, 'node_modules', '.cache', 'agentrun-bench', name);
const loadCore = async (dir: string) =>
  ((await import(pathToFileURL(join(dir, 'packages/core/src/index.ts')).href)) as { createAgentRunHandler: Create }).createAgentRunHandler;

/**
 * `createAgentRunHandler` of core at the commit before packages/core/src/telemetry existed, with
 * the memory store of that commit: the store's port differs from today's (that accept made the
 * runs; today's evaluation makes them after the 202), so the baseline runs as it was, whole. Its store resolves `@agentrun/core`
 * to that core through a link beside them.
 */
async function coreBefore(): Promise<{ create: Create; createStore: () => unknown; commit: string }> {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO, encoding: 'utf8' }).trim();
  const added = git('log', '--diff-filter=A', '--format=%H', '--', 'packages/core/src/telemetry/telemetry.ts').split('\n').pop();
  if (!added) throw new Error('no commit adds packages/core/src/telemetry/telemetry.ts');
  const commit = git('rev-parse', '--short', `${added}^`);
  const dir = cacheDir(`core-${commit}`);
  if (!existsSync(join(dir, 'packages/store-memory/src/index.ts'))) {
    mkdirSync(dir, { recursive: true });
    execFileSync('sh', ['-c', `git archive ${commit} packages/core packages/store-memory | tar -x -C '${dir}'`], { cwd: REPO });
  }
  const link = join(dir, 'node_modules/@agentrun/core');
  if (!existsSync(link)) {
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync('../../packages/core', link);
  }
  const memory = (await import(pathToFileURL(join(dir, 'packages/store-memory/src/index.ts')).href)) as {
    createMemoryStore: () => unknown;
  };
  return { create: await loadCore(dir), createStore: memory.createMemoryStore, commit };
}

/**
 * Core as it is in this checkout, copied beside the baseline and loaded the same way, so that
 * where a module is loaded from (tsx treats node_modules apart) weighs on both alike.
 */
async function coreNow(): Promise<Create> {
  const dir = cacheDir(`core-now-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'packages/core'), { recursive: true });
  for (const part of ['package.json', 'src'])
    cpSync(join(REPO, 'packages/core', part), join(dir, 'packages/core', part), { recursive: true });
  return loadCore(dir);
}

class IdleReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/** The q-quantile (0 … 1) of `xs`, interpolated. */
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  return (s[lo] as number) + ((s[Math.ceil(at)] as number) - (s[lo] as number)) * (at - lo);
};
const median = (xs: number[]) => quantile(xs, 0.5);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/**
 * A variant's cost over `before`: its total time over all rounds against before's, minus 1. A
 * round now and then takes a collection or a neighbour's burst; a total over all rounds carries
 * those for both alike, where the median of single rounds' ratios swings with them.
 */
const totalCost = (times: Record<string, number[]>, n: string, rounds?: number[]) => {
  const pick = (xs: number[]) => (rounds ? rounds.map((r) => xs[r] as number) : xs);
  return sum(pick(times[n] as number[])) / sum(pick(times.before as number[])) - 1;
};

/** The 2.5 % and 97.5 % quantiles of `totalCost` over 2,000 resamples of the rounds (with replacement). */
function bootstrapInterval(times: Record<string, number[]>, n: string): [number, number] {
  const count = (times.before as number[]).length;
  let seed = 1;
  const random = () => {
    seed = (seed * 16807) % 2147483647;
    return (seed - 1) / 2147483646;
  };
  const costs = Array.from({ length: 2000 }, () =>
    totalCost(
      times,
      n,
      Array.from({ length: count }, () => Math.floor(random() * count)),
    ),
  );
  return [quantile(costs, 0.025), quantile(costs, 0.975)];
}
const percent = (x: number) => `${(x * 100).toFixed(2)} %`;

export const ingressTelemetryGroup: BenchGroup = {
  name: 'ingress-telemetry',
  description: `the OpenTelemetry instrumentation's cost per core delivery: before it, without an SDK, with an SDK and in-memory exporter (${ROUNDS} alternating rounds of ${PER_ROUND})`,
  async run() {
    const before = await coreBefore();
    const now = await coreNow();
    const spans = new InMemorySpanExporter();
    // A queue large enough that no span is dropped (dropping would be cheaper than exporting).
    const processor = new BatchSpanProcessor(spans, { maxQueueSize: 100_000, maxExportBatchSize: 1000, scheduledDelayMillis: 100 });
    const telemetry = {
      meterProvider: new MeterProvider({ readers: [new IdleReader()] }),
      tracerProvider: new BasicTracerProvider({ spanProcessors: [processor] }),
    };
    const variants = {
      before: await agentrunHandler(false, before.create, { store: before.createStore() as Store }),
      'no-sdk': await agentrunHandler(false, now),
      sdk: await agentrunHandler(false, now, { telemetry }),
    };
    const names = Object.keys(variants) as (keyof typeof variants)[];
    const send = Object.fromEntries(
      names.map((n) => [n, deliveries(variants[n].handler, variants[n].targets, evaluatorOf(variants[n].handler))]),
    ) as Record<keyof typeof variants, (count: number) => Promise<number>>;
    await processor.forceFlush(); // the setup's request spans, out of the count below
    spans.reset();
    for (const n of names) await send[n](PER_ROUND);
    // The sdk variant really records: spans per delivery (1 delivery span; executions run nowhere here).
    await processor.forceFlush();
    const spansPerDelivery = spans.getFinishedSpans().length / PER_ROUND;
    const us: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
    // The process's CPU time per delivery (all its threads: the collector's too), beside the wall
    // time: other programs on a shared machine lengthen the wall time of whichever variant they
    // meet, not this process's CPU time, so the criterion is judged on it.
    const cpu: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate who goes first, so a drift of the machine's speed within a round falls on each alike.
      for (let i = 0; i < names.length; i++) {
        const n = names[(round + i) % names.length] as keyof typeof variants;
        const started = process.cpuUsage();
        us[n]?.push(await send[n](PER_ROUND));
        const used = process.cpuUsage(started);
        cpu[n]?.push((used.user + used.system) / PER_ROUND);
        spans.reset();
      }
    }
    const ratios = (n: string, of = cpu) => (of[n] as number[]).map((x, r) => x / (of.before?.[r] as number) - 1);
    const noSdk = totalCost(cpu, 'no-sdk');
    const withSdk = totalCost(cpu, 'sdk');
    console.table(
      names.map((n) => ({
        variant: n,
        'CPU µs/delivery (median)': Number(median(cpu[n] as number[]).toFixed(2)),
        'wall µs/delivery (median)': Number(median(us[n] as number[]).toFixed(2)),
        'CPU cost vs before': n === 'before' ? `(core at ${before.commit})` : percent(totalCost(cpu, n)),
        // How sure that figure is: 95 % of the bootstrap resamples of the rounds fall in here.
        'CPU cost, 95 % interval': n === 'before' ? '' : bootstrapInterval(cpu, n).map(percent).join(' … '),
        // The middle half of the single rounds' costs: how far the noise of the machine reaches.
        'CPU cost, rounds 25–75 %': n === 'before' ? '' : `${percent(quantile(ratios(n), 0.25))} … ${percent(quantile(ratios(n), 0.75))}`,
        'wall cost vs before': n === 'before' ? '' : percent(totalCost(us, n)),
      })),
    );
    console.log(`sdk variant: ${spansPerDelivery} span(s) exported per delivery`);
    console.log(`no-sdk cost ${(noSdk * 100).toFixed(2)} % (criterion ≤ ${CRITERION * 100} %): ${noSdk <= CRITERION ? 'PASS' : 'FAIL'}`);
    for (const n of names) await evaluatorOf(variants[n].handler)?.stop();
    return {
      'ingress.telemetry_before_us_per_delivery': median(us.before as number[]),
      'ingress.telemetry_no_sdk_us_per_delivery': median(us['no-sdk'] as number[]),
      'ingress.telemetry_sdk_us_per_delivery': median(us.sdk as number[]),
      'ingress.telemetry_before_cpu_us_per_delivery': median(cpu.before as number[]),
      'ingress.telemetry_no_sdk_cpu_us_per_delivery': median(cpu['no-sdk'] as number[]),
      'ingress.telemetry_sdk_cpu_us_per_delivery': median(cpu.sdk as number[]),
      'ingress.telemetry_no_sdk_cost': noSdk,
      'ingress.telemetry_sdk_cost': withSdk,
    };
  },
};
