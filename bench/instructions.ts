import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { BenchGroup } from './run.js';

/**
 * Instructions per operation through the core handler, counted by callgrind: on a shared machine,
 * where wall-clock figures swing by tens of percent, a delivery's count repeats within a few
 * percent and a large request's within 0.1%, so it decides whether a change to a hot path saves
 * what it claims (bench/README.md, "What was tried").
 *
 * Each workload of bench/instructions-worker.ts (a webhook delivery with its evaluation, run
 * creates with small and large bodies) runs in a child process under `valgrind --tool=callgrind`
 * twice, with `count` and with twice `count` operations after the same warm-up; the difference
 * over `count` is one operation's instructions (start-up, setup and warm-up cancel out). The
 * child is bundled first with esbuild (loading TypeScript through tsx under callgrind takes
 * minutes), without address-space randomization (`setarch -R`), with V8's `--predictable` (one
 * thread), fixed seeds and a fixed young generation of 1 MB in an old generation too large to be
 * collected: otherwise a full collection more or less, or a scavenge, moves the count by more than
 * a change to a hot path does. So the figures are instructions, JIT compilation and the young
 * generation's collections included, not time. The child's clock and randomness are seeded too
 * (bench/instructions-worker.ts). Skipped when valgrind is not installed.
 *
 * Knobs (environment): INSTRUCTIONS_WORKLOADS (a comma-separated list; every workload by default).
 */
const WORKLOADS: Record<string, { warm: number; count: number }> = {
  delivery: { warm: 2000, count: 2000 },
  'run-small': { warm: 2000, count: 2000 },
  'run-1mib': { warm: 5, count: 10 },
  'run-largest': { warm: 2, count: 2 },
};

export const instructionsGroup: BenchGroup = {
  name: 'instructions',
  description: 'instructions per delivery and per run create through the core handler, counted by callgrind',
  async run() {
    if (spawnSync('valgrind', ['--version']).status !== 0) {
      console.log('valgrind is not installed: skipped');
      return {};
    }
    const dir = mkdtempSync(join(tmpdir(), 'agentrun-instructions-'));
    const worker = join(dir, 'worker.mjs');
    try {
      await build({
        entryPoints: [new URL('./instructions-worker.ts', import.meta.url).pathname],
        bundle: true,
        platform: 'node',
        format: 'esm',
        conditions: ['agentrun-source'],
        outfile: worker,
        // pg's optional native binding, which the bundle must not look for.
        external: ['pg-native'],
        // The bundle's CommonJS dependencies call `require`.
        banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
        logLevel: 'warning',
      });
      const wanted = process.env.INSTRUCTIONS_WORKLOADS?.split(',') ?? Object.keys(WORKLOADS);
      const figures: Record<string, number> = {};
      for (const name of wanted) {
        const workload = WORKLOADS[name];
        if (!workload) throw new Error(`unknown workload ${name}; workloads: ${Object.keys(WORKLOADS).join(', ')}`);
        const once = instructions(worker, name, workload.warm, workload.count);
        const twice = instructions(worker, name, workload.warm, 2 * workload.count);
        const perOp = (twice - once) / workload.count;
        console.log(`${name}: ${once} and ${twice} instructions in all, ${Math.round(perOp)} per operation`);
        figures[`instructions.${name.replace(/-/g, '_')}`] = perOp;
      }
      return figures;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

const V8_FLAGS = [
  '--predictable',
  '--random-seed=1',
  '--hash-seed=1',
  '--initial-old-space-size=4096',
  '--max-old-space-size=8192',
  '--min-semi-space-size=1',
  '--max-semi-space-size=1',
];

/** The instructions callgrind counts for one child process running `count` operations after `warm`. */
function instructions(worker: string, name: string, warm: number, count: number): number {
  const child = spawnSync(
    'setarch',
    [
      '-R',
      'valgrind',
      '--tool=callgrind',
      '--callgrind-out-file=/dev/null',
      'node',
      ...V8_FLAGS,
      worker,
      name,
      String(warm),
      String(count),
    ],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const collected = /Collected : (\d+)/.exec(child.stderr)?.[1];
  if (child.status !== 0 || collected === undefined)
    throw new Error(`callgrind of ${name} failed (${child.status}): ${child.stderr.slice(-2000)}`);
  return Number(collected);
}
