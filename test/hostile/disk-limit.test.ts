import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgentRun, type RunItem } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { type DiskLimit, processExecutor } from '@agentrun/executor-process';
import { describe, expect, it } from 'vitest';
import { type FloodPace, fileFlood } from './support/file-flood.js';
import { until } from './support/host-processes.js';
import { ISOLATION_MODES, type IsolationMode, unavailable } from './support/isolation-modes.js';
import { storeFor } from './support/stores.js';
import { testScope } from './support/test-scope.js';

/**
 * An agent that writes past `maxWorkspaceBytes` by the ways a walk of the workspace missed: a path
 * longer than PATH_MAX (the walk saw an empty directory, the removal failed and left 100 MB), a
 * file deleted while open, a burst written between two checks and then exit, and /tmp. Each run
 * must end FAILED `disk_limit` and leave nothing on disk: no file under the workspace root, no
 * mount (docs/executors.md, "Disk limits"). Every isolation mode the machine gives, the
 * kernel-held filesystem per run where root can have one, and the measured mode. On PostgreSQL
 * only: the executor holds the cap and removes the files; the store writes the outcome it is
 * told, as on the memory store (the store conformance suite).
 */

const principal = testPrincipal();
const MiB = 2 ** 20;
const CAP = 16 * MiB;
/** Each agent tries to write four times the cap. */
const WRITE = `head -c ${4 * CAP} /dev/zero`;

/** The agents, each a shell command line; `$T` is where the mode's /tmp is (the host's in the plain mode: its TMPDIR). */
const AGENTS = {
  // 25 directories of 200-character names: over 5,000 bytes of path (bash: dash's cd stops at PATH_MAX).
  deep: `bash -c 'd=$(printf "d%.0s" $(seq 200)); for i in $(seq 25); do mkdir "$d" && cd "$d" || exit 3; done; ${WRITE} > big; exit 0'`,
  // Written into a file already unlinked, and held open.
  deleted: `exec 3>gone; rm gone; ${WRITE} >&3; exec sleep 30`,
  // Written at once, then exit, before a periodic check comes.
  burst: `${WRITE} > big; exit 0`,
  // Into /tmp, not the workspace.
  tmp: `${WRITE} > "$T/big"; exit 0`,
};

const DISK_LIMITS = ['filesystem', 'measured'] as const satisfies readonly DiskLimit[];
/**
 * The small files of the flood case, and the bound on the server's memory above its own at its
 * peak meanwhile: a walk of the workspace on the server's event loop, with `fs.rm` after the run,
 * takes it +95 MB at 60,000 files (and 37 s of its CPU); `du` and `rm` in child processes take it
 * +0 to +11 MB, at 400,000 files too (bench/README.md). Fewer files would bring the walk's cost
 * down into the noise of the server's own.
 */
const FLOOD_FILES = 60_000;
const FLOOD_MEMORY_MB = 50;
/** The memory is asserted, not the CPU nor the latency: no idle reference, no hold (file-flood.ts). */
const FLOOD_PACE: FloodPace = { holdS: 0, idleS: 0, statePollMs: 100 };

// The cost is the server's: its memory is asserted, its CPU and /healthz's latency printed
// (timings are the bench's: `npm run bench -- hostile`, bench/README.md). On the memory store
// alone: the store keeps one run of no output, and what is measured is the executor's walk and
// removal of the files, the same whichever store the server has.
describe("an agent's flood of small files", () => {
  for (const diskLimit of DISK_LIMITS) {
    const missing = diskLimit === 'filesystem' ? unavailable(['filesystem']) : undefined;
    it.skipIf(missing !== undefined && process.env.CI !== 'true')(
      `keeps the server's memory bounded while an agent makes ${FLOOD_FILES.toLocaleString('en')} files, ${diskLimit}${missing ? ` (skipped: ${missing})` : ''}`,
      async () => {
        if (missing) throw new Error(`CI=true and this mode cannot be had here: ${missing}`);
        const round = await fileFlood(diskLimit, FLOOD_FILES, undefined, FLOOD_PACE);
        console.log(
          `[disk-limit ${diskLimit}] ${FLOOD_FILES} files: server CPU ${round.cpuS.toFixed(2)} s, memory +${round.memMb.toFixed(0)} MB, /healthz p99 ${round.p99Ms.toFixed(1)} ms (max ${round.maxMs.toFixed(1)}), run ${round.seconds.toFixed(1)} s`,
        );
        expect(round.state).toBe('SUCCEEDED');
        expect(round.memMb).toBeLessThan(FLOOD_MEMORY_MB);
      },
      90_000,
    );
  }
});

describe('an agent writing past its disk cap', () => {
  const stores = storeFor('postgres', 'disk-limit');
  const scope = testScope();

  const runAll = async (mode: IsolationMode, diskLimit: DiskLimit) => {
    scope.root = mkdtempSync(join(tmpdir(), 'agentrun-hostile-disk-'));
    const executor = processExecutor({
      // The prompt is the agent's command line: one executor serves all four.
      command: `T=${mode.privateTmp ? '/tmp' : '"$TMPDIR"'}; eval "$(cat "$AGENTRUN_PROMPT_FILE")"`,
      shell: true,
      workspaceRoot: scope.root,
      killGraceMs: 200,
      maxWorkspaceBytes: CAP,
      diskLimit,
      onError: () => {},
      ...mode.options,
    });
    const agentrun = createAgentRun({ store: await stores.fresh(), executor });
    scope.worker = agentrun.worker({ pollIntervalMs: 20, concurrency: 4, onError: () => {} });
    scope.worker.start();
    const ids = Object.fromEntries(
      await Promise.all(
        Object.entries(AGENTS).map(async ([name, command]) => [
          name,
          (await agentrun.services.runs.create(principal, { prompt: command })).body.run_id,
        ]),
      ),
    ) as Record<keyof typeof AGENTS, string>;
    const ended = async (id: string) =>
      ['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'].includes((await agentrun.services.runs.get(principal, id)).state);
    await until(async () => (await Promise.all(Object.values(ids).map(ended))).every(Boolean), 'every run to end', 40_000);
    const runs: Record<string, Pick<RunItem, 'state'> & { error_code?: string }> = {};
    for (const [name, id] of Object.entries(ids)) {
      const run = await agentrun.services.runs.get(principal, id);
      runs[name] = { state: run.state, error_code: (run.status_message as { error_code?: string } | undefined)?.error_code };
    }
    return runs;
  };

  for (const mode of ISOLATION_MODES) {
    const missing = unavailable(mode.needs);
    it.skipIf(missing !== undefined && process.env.CI !== 'true')(
      `gives the agent a /tmp and /dev/shm its user can write, gone with the run, ${mode.name}${missing ? ` (skipped: ${missing})` : ''}`,
      async () => {
        if (missing) throw new Error(`CI=true and this mode cannot be had here: ${missing}`);
        scope.root = mkdtempSync(join(tmpdir(), 'agentrun-hostile-tmp-'));
        const marker = `agentrun-tmp-marker-${Math.random().toString(36).slice(2)}`;
        const executor = processExecutor({
          // mktemp honours TMPDIR; the literal paths are what a program that ignores it writes.
          command: `mktemp && echo x > /tmp/${marker} && echo x > /dev/shm/${marker} && ls -ld /tmp /dev/shm`,
          shell: true,
          workspaceRoot: scope.root,
          onError: () => {},
          ...mode.options,
        });
        const agentrun = createAgentRun({ store: await stores.fresh(), executor });
        scope.worker = agentrun.worker({ pollIntervalMs: 20, onError: () => {} });
        scope.worker.start();
        const id = (await agentrun.services.runs.create(principal, { prompt: 'tmp' })).body.run_id;
        const ended = async () =>
          ['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'].includes((await agentrun.services.runs.get(principal, id)).state);
        await until(ended, 'the run to end', 20_000);
        const run = await agentrun.services.runs.get(principal, id);
        expect(run.state, JSON.stringify(run.status_message)).toBe('SUCCEEDED');
        expect(readdirSync(scope.root)).toEqual([]);
        // Isolated, the host's /tmp and /dev/shm never saw the files; plain, the agent reaches the host's (docs/executors.md).
        const onHost = ['/tmp', '/dev/shm'].filter((dir) => readdirSync(dir).includes(marker));
        expect(onHost).toEqual(mode.privateTmp ? [] : ['/tmp', '/dev/shm']);
        for (const dir of onHost) rmSync(join(dir, marker));
      },
      30_000,
    );

    for (const diskLimit of DISK_LIMITS) {
      const missing = unavailable(diskLimit === 'filesystem' ? [...mode.needs, 'filesystem'] : mode.needs);
      it.skipIf(missing !== undefined && process.env.CI !== 'true')(
        `ends each run FAILED disk_limit and leaves nothing, ${mode.name}, ${diskLimit}${missing ? ` (skipped: ${missing})` : ''}`,
        async () => {
          if (missing) throw new Error(`CI=true and this mode cannot be had here: ${missing}`);
          const runs = await runAll(mode, diskLimit);
          const expected = Object.fromEntries(Object.keys(AGENTS).map((name) => [name, { state: 'FAILED', error_code: 'disk_limit' }]));
          expect(runs).toEqual(expected);
          // Nothing on disk, and nothing mounted, once the runs have ended.
          expect(readdirSync(scope.root as string)).toEqual([]);
          expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(scope.root as string);
        },
        60_000,
      );
    }
  }
});
