import type { CliProfile } from '../test/harnesses/support/cli-profiles.js';
import { startModelServer } from '../test/support/model-server/server.js';
import { type AgentrunSample, agentrunSide } from './harness-agentrun.js';
import { CLIS, SCRIPT } from './harness-case.js';
import { type DirectSample, directRun } from './harness-direct.js';
import type { BenchGroup } from './run.js';

/**
 * What running an agent CLI through agentrun costs beside starting it directly (docs/harnesses.md):
 * for each CLI (claude, codex, gemini), against the scripted model server, the turn of the
 * end-to-end suite (a shell command, a file written, "All done").
 *
 * - agentrun (bench/harness-agentrun.ts): a run created through the API, memory store, one worker,
 *   plain isolation. Timed from its claim (its CLAIMED event) to the CLI's first model request
 *   (`first_request_ms`), and to SUCCEEDED (`wall_ms`): the worker's transitions, the workspace,
 *   the harness's files, the spawn through the executor's wrappers, the CLI's own start and work,
 *   the transcript's writes, the drain after exit, the outcome's write.
 * - direct (bench/harness-direct.ts): the same CLI, invocation and turn, spawned by hand in a fresh
 *   directory. Timed from the spawn call to its first model request (`direct_first_request_ms`) and
 *   to its exit with its pipes closed (`direct_wall_ms`).
 *
 * Alternating, agentrun first in even rounds and direct first in odd ones (the machine is shared),
 * WARMUP untimed rounds then ROUNDS timed ones per CLI. Figures are medians (`_p90_ms` beside);
 * `first_request_overhead_pct` and `overhead_pct` (the wall's) are (agentrun − direct) / direct of
 * the medians. The target: at most 10 %. The printed lines also split each side's median into
 * phases, to see where a difference lies.
 *
 * HARNESS_BENCH_ROUNDS (default 8), HARNESS_BENCH_WARMUP (default 1), HARNESS_BENCH_CLIS (e.g. `claude,gemini`).
 */

const ROUNDS = Number(process.env.HARNESS_BENCH_ROUNDS ?? 8);
const WARMUP = Number(process.env.HARNESS_BENCH_WARMUP ?? 1);
const WANTED = process.env.HARNESS_BENCH_CLIS?.split(',').map((s) => s.trim());

export const harnessGroup: BenchGroup = {
  name: 'harness',
  description: `agent CLIs through agentrun vs started directly, ${ROUNDS} alternating rounds each: claim/spawn → first model request, and → the end`,
  async run() {
    const figures: Record<string, number> = {};
    const rows: string[] = [];
    for (const cli of CLIS.filter((c) => !WANTED || WANTED.includes(c.type))) {
      const { agentrun, direct } = await rounds(cli);
      const a = { first: agentrun.map((s) => s.firstRequestAt - s.claimedAt), wall: agentrun.map((s) => s.succeededAt - s.claimedAt) };
      const d = { first: direct.map((s) => s.firstRequestAt - s.spawnedAt), wall: direct.map((s) => s.closedAt - s.spawnedAt) };
      const over = (x: number[], y: number[]) => ((median(x) - median(y)) / median(y)) * 100;
      const f = `harness.${cli.type}`;
      Object.assign(figures, {
        [`${f}.first_request_ms`]: median(a.first),
        [`${f}.first_request_p90_ms`]: p90(a.first),
        [`${f}.direct_first_request_ms`]: median(d.first),
        [`${f}.direct_first_request_p90_ms`]: p90(d.first),
        [`${f}.first_request_overhead_pct`]: over(a.first, d.first),
        [`${f}.wall_ms`]: median(a.wall),
        [`${f}.wall_p90_ms`]: p90(a.wall),
        [`${f}.direct_wall_ms`]: median(d.wall),
        [`${f}.direct_wall_p90_ms`]: p90(d.wall),
        [`${f}.overhead_pct`]: over(a.wall, d.wall),
      });
      console.log(phases(cli, agentrun, direct));
      const cell = (x: number[]) => `${median(x).toFixed(0)} (${p90(x).toFixed(0)})`;
      const pct = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)} %`;
      rows.push(
        `| ${cli.type} | ${cell(a.first)} | ${cell(d.first)} | ${pct(over(a.first, d.first))} | ${cell(a.wall)} | ${cell(d.wall)} | ${pct(over(a.wall, d.wall))} |`,
      );
    }
    console.log(
      [
        `\n${ROUNDS} rounds per CLI, median (p90), ms:\n`,
        '| CLI | agentrun: claim → 1st request | direct: spawn → 1st request | overhead | agentrun: claim → SUCCEEDED | direct: spawn → exit | overhead |',
        '| --- | --- | --- | --- | --- | --- | --- |',
        ...rows,
      ].join('\n'),
    );
    return figures;
  },
};

/** WARMUP + ROUNDS pairs of runs of one CLI, alternating which side goes first; the timed ones. */
async function rounds(cli: CliProfile): Promise<{ agentrun: AgentrunSample[]; direct: DirectSample[] }> {
  const model = await startModelServer([cli.api], SCRIPT);
  const side = await agentrunSide(cli, model).catch(async (error: unknown) => {
    await model.close();
    throw error;
  });
  const agentrun: AgentrunSample[] = [];
  const direct: DirectSample[] = [];
  try {
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      let a: AgentrunSample | undefined;
      let d: DirectSample | undefined;
      if (i % 2 === 0) {
        a = await side.run();
        d = await directRun(cli, model);
      } else {
        d = await directRun(cli, model);
        a = await side.run();
      }
      const timed = i >= WARMUP;
      console.log(
        `[harness] ${cli.type} ${timed ? `round ${i - WARMUP + 1}` : 'warm-up'}: agentrun ${a.firstRequestAt - a.claimedAt} / ${a.succeededAt - a.claimedAt} ms, direct ${d.firstRequestAt - d.spawnedAt} / ${d.closedAt - d.spawnedAt} ms (first request / end)`,
      );
      if (!timed) continue;
      agentrun.push(a);
      direct.push(d);
    }
  } finally {
    await side.close();
    await model.close();
  }
  return { agentrun, direct };
}

/** Each side's median phases: where agentrun's time goes beside the CLI's own. */
function phases(cli: CliProfile, agentrun: AgentrunSample[], direct: DirectSample[]): string {
  const m = <T>(xs: T[], pick: (x: T) => number) => median(xs.map(pick)).toFixed(0);
  // Within a round the two ran a few seconds apart: the machine's load drifts less between them than across rounds.
  const pairs = agentrun.map((a, i) => {
    const d = direct[i] as DirectSample;
    return {
      first: a.firstRequestAt - a.claimedAt - (d.firstRequestAt - d.spawnedAt),
      wall: a.succeededAt - a.claimedAt - (d.closedAt - d.spawnedAt),
    };
  });
  return [
    `${cli.type}, median phases, ms (${median(agentrun.map((s) => s.requests))} model requests a run):`,
    `  agentrun: claim → INPROGRESS ${m(agentrun, (s) => s.startedAt - s.claimedAt)}, → execute ${m(agentrun, (s) => s.executeAt - s.startedAt)}, execute → 1st request ${m(agentrun, (s) => s.firstRequestAt - s.executeAt)}, 1st → last request ${m(agentrun, (s) => s.lastRequestAt - s.firstRequestAt)}, last request → execute returned ${m(agentrun, (s) => s.executedAt - s.lastRequestAt)}, → SUCCEEDED ${m(agentrun, (s) => s.succeededAt - s.executedAt)}`,
    `  direct:   spawn → 1st request ${m(direct, (s) => s.firstRequestAt - s.spawnedAt)}, 1st → last request ${m(direct, (s) => s.lastRequestAt - s.firstRequestAt)}, last request → exit ${m(direct, (s) => s.closedAt - s.lastRequestAt)}`,
    `  paired (each round's agentrun − its direct, median): 1st request ${m(pairs, (p) => p.first)}, end ${m(pairs, (p) => p.wall)}`,
  ].join('\n');
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** The nearest-rank 90th percentile: with 8 samples, the largest. */
function p90(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.9 * s.length) - 1)] as number;
}
