import { type FloodMode, type FloodRound, fileFlood } from '../test/hostile/support/file-flood.js';
import type { BenchGroup } from './run.js';

/**
 * What a hostile agent's small files cost the server (docs/executors.md, "Disk limits";
 * test/hostile/support/file-flood.ts says what one round measures): FILES empty files, three
 * ways, alternating, ROUNDS times: no cap (the reference), the measured cap (`du` in a child
 * process, paced) and the filesystem per run (root only; left out elsewhere).
 *
 * Figures, the worst round of each: `hostile.<mode>_cpu_s` and `_cpu_above_idle_s`, `hostile.<mode>_mem_mb`,
 * `hostile.<mode>_healthz_p99_ms`, and `hostile.<mode>_succeeded` (1 when every round's run
 * SUCCEEDED). The targets: under 1 s of CPU, under 100 MB and a p99 under 100 ms with a cap.
 */

const FILES = Number(process.env.HOSTILE_BENCH_FILES ?? 400_000);
const ROUNDS = Number(process.env.HOSTILE_BENCH_ROUNDS ?? 2);

export const hostileGroup: BenchGroup = {
  name: 'hostile',
  description: `${FILES.toLocaleString('en')} small files by a hostile agent: the server's CPU, memory and /healthz p99, with no cap (reference), the measured cap and the filesystem per run`,
  async run() {
    const modes: FloodMode[] = ['none', 'measured', ...(process.geteuid?.() === 0 ? (['filesystem'] as const) : [])];
    const rounds = new Map<FloodMode, FloodRound[]>(modes.map((m) => [m, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of modes) {
        const result = await fileFlood(mode, FILES);
        console.log(
          `[hostile] ${mode}: server CPU ${result.cpuS.toFixed(2)} s (${result.cpuAboveIdleS.toFixed(2)} above idle), memory +${result.memMb.toFixed(0)} MB, /healthz p99 ${result.p99Ms.toFixed(1)} ms (max ${result.maxMs.toFixed(1)}), run ${result.state} ${result.errorCode ?? ''} in ${result.seconds.toFixed(1)} s`,
        );
        rounds.get(mode)?.push(result);
      }
    }
    const figures: Record<string, number> = {};
    for (const [mode, results] of rounds) {
      const worst = (pick: (r: FloodRound) => number) => Math.max(...results.map(pick));
      figures[`hostile.${mode}_cpu_s`] = worst((r) => r.cpuS);
      figures[`hostile.${mode}_cpu_above_idle_s`] = worst((r) => r.cpuAboveIdleS);
      figures[`hostile.${mode}_mem_mb`] = worst((r) => r.memMb);
      figures[`hostile.${mode}_healthz_p99_ms`] = worst((r) => r.p99Ms);
      figures[`hostile.${mode}_succeeded`] = results.every((r) => r.state === 'SUCCEEDED') ? 1 : 0;
    }
    return figures;
  },
};
