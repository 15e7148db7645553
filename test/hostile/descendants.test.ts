import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentRun, createAgentRun, type RunItem } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { type Containment, processExecutor } from '@agentrun/executor-process';
import { describe, expect, it } from 'vitest';
import { processesWith, until } from './support/host-processes.js';
import { HOSTILE_STORES, storeFor } from './support/stores.js';
import { testScope } from './support/test-scope.js';

/**
 * An agent's descendants: one that calls `setsid` leaves the process group and could outlive its
 * run, and one that keeps stdout open could keep the run INPROGRESS and its worker slot taken
 * (four such runs would block a worker). Every descendant ends with the run, at its end, at a cancel and
 * at a timeout, and the run ends whatever a descendant holds open (docs/executors.md,
 * "Containment").
 *
 * The agent leaves two: one that calls `setsid` (out of the process group, its output closed) and
 * one double-forked, in a session of its own, holding the agent's stdout and stderr. The worker
 * has one slot: a next run that succeeds shows it free. Both containments are run: the PID
 * namespace (the default where one can be had, as on this machine and CI) and the process group
 * with its sweep of /proc; the PID namespace's case is skipped, saying why, where none can be had.
 */

const principal = testPrincipal();

/** Starts the two descendants, waits until both run, then ends now ("end") or waits ("wait"). */
const AGENT = [
  `setsid sh -c 'touch setsid.up; exec sleep 3600' </dev/null >/dev/null 2>&1 &`,
  `( setsid sh -c 'echo holder; touch holder.up; exec sleep 3600' & )`,
  'while [ ! -f setsid.up ] || [ ! -f holder.up ]; do sleep 0.01; done',
  'echo descendants up',
  `case $(cat "$AGENTRUN_PROMPT_FILE") in wait*) exec sleep 3600 ;; esac`,
].join('\n');

const CONTAINMENTS: Containment[] = ['pid-namespace', 'process-group'];

describe.each(HOSTILE_STORES)('descendants of an agent, on %s', (kind) => {
  const stores = storeFor(kind, 'descendants');
  const scope = testScope();

  const start = async (containment: Containment, extra: { timeoutMs?: number } = {}) => {
    scope.root = mkdtempSync(join(tmpdir(), 'agentrun-hostile-descendants-'));
    const executor = processExecutor({
      command: AGENT,
      shell: true,
      workspaceRoot: scope.root,
      killGraceMs: 1000,
      containment,
      onError: () => {},
      ...extra,
    });
    const agentrun = createAgentRun({ store: await stores.fresh(), executor });
    scope.worker = agentrun.worker({ concurrency: 1, pollIntervalMs: 20 });
    scope.worker.start();
    return agentrun;
  };
  const create = async (agentrun: AgentRun, prompt: string) => (await agentrun.services.runs.create(principal, { prompt })).body.run_id;
  const ended = async (agentrun: AgentRun, runId: string): Promise<RunItem> => {
    let run = await agentrun.services.runs.get(principal, runId);
    await until(async () => {
      run = await agentrun.services.runs.get(principal, runId);
      return ['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'].includes(run.state);
    }, `run ${runId} to end`);
    return run;
  };
  const descendantsUp = async (agentrun: AgentRun, runId: string) => {
    await until(async () => {
      const events = await agentrun.store.runEvents.list(runId, { limit: 100 });
      return events.some((e) => e.type === 'output' && (e.data as { text: string }).text === 'descendants up');
    }, 'the agent to start its descendants');
  };
  /** What the run left: none of its processes, and its slot free (the next run succeeds). */
  const nothingLeft = async (agentrun: AgentRun) => {
    await until(() => processesWith(`=${scope.root}/`).length === 0, 'the descendants to be gone', 3000);
    const next = await ended(agentrun, await create(agentrun, 'end'));
    expect(next.state).toBe('SUCCEEDED');
    await until(() => processesWith(`=${scope.root}/`).length === 0, "the next run's descendants to be gone", 3000);
  };

  describe.each(CONTAINMENTS)('contained by %s', (containment) => {
    const it_ = it.skipIf(containment === 'pid-namespace' && !pidNamespaceHere());

    it_('the run ends when the agent exits, and its descendants go with it', async () => {
      const agentrun = await start(containment);
      const runId = await create(agentrun, 'end');
      const run = await ended(agentrun, runId);
      expect(run.state, JSON.stringify(run.status_message)).toBe('SUCCEEDED');
      await nothingLeft(agentrun);
    });

    it_('a cancel ends the run and every descendant', async () => {
      const agentrun = await start(containment);
      const runId = await create(agentrun, 'wait');
      await descendantsUp(agentrun, runId);
      expect(processesWith(`=${scope.root}/`).length).toBeGreaterThanOrEqual(3);
      await agentrun.services.runs.cancel(principal, runId);
      expect((await ended(agentrun, runId)).state).toBe('CANCELLED');
      await nothingLeft(agentrun);
    });

    it_('a timeout ends the run and every descendant', async () => {
      const agentrun = await start(containment, { timeoutMs: 1500 });
      const runId = await create(agentrun, 'wait');
      const run = await ended(agentrun, runId);
      expect(run.status_message).toMatchObject({ error_code: 'timeout' });
      await nothingLeft(agentrun);
    });
  });
});

import { spawnSync } from 'node:child_process';

/** Whether this machine gives a PID namespace (what containment 'auto' probes); under CI=true it must. */
function pidNamespaceHere(): boolean {
  const asRoot = process.geteuid?.() === 0;
  const probe = spawnSync('unshare', [
    ...(asRoot ? [] : ['--user', '--map-current-user']),
    '--pid',
    '--fork',
    '--kill-child',
    '--mount-proc',
    'true',
  ]);
  if (probe.status === 0) return true;
  if (process.env.CI === 'true') throw new Error(`CI=true and no PID namespace can be had here: ${String(probe.stderr)}`);
  console.warn(`[descendants] no PID namespace here (${String(probe.stderr).trim()}): its cases are skipped`);
  return false;
}
