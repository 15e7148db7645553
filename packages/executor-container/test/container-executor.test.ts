import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ResolvedEnvironment, SecretValue } from '@agentrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContainerExecutor, containerExecutor, LABELS } from '../src/index.js';
import { busyboxImage, type Podman, podmanUnavailable, startPodman } from './support/podman.js';
import { runsOn, until, withEnvironment } from './support/runs.js';

/**
 * The container executor on a real Podman (docs/executors.md, "The container executor"): one
 * engine service and one busybox image for the file; each case a run through a worker whose
 * environment names the image, and the engine asked afterwards what is left.
 */
const missing = podmanUnavailable();
const skipped = missing !== undefined && process.env.CI !== 'true';

describe.skipIf(skipped)(`the container executor on Podman${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let podman: Podman;
  let image: string;
  let root: string;
  let executor: ContainerExecutor;
  let runs: ReturnType<typeof runsOn>;
  /** What the next run's environment says: its image and limits (undefined: no environment). */
  let environment: Partial<ResolvedEnvironment> | undefined;
  /** The agent's command per run, chosen by its prompt: `sh -c <prompt>`. */
  const host = `test-host-${process.pid}`;

  beforeAll(async () => {
    if (missing) throw new Error(`CI=true and Podman cannot be had here: ${missing}`);
    podman = await startPodman();
    image = busyboxImage(podman);
    root = mkdtempSync(join(tmpdir(), 'agentrun-container-runs-'));
    process.env.AGENTRUN_TEST_SERVER_SECRET = 'server-canary-7f3a';
    executor = containerExecutor({
      engine: podman.engine,
      command: ['/bin/sh', '-c', 'exec sh -c "$(cat "$AGENTRUN_PROMPT_FILE")"'],
      workspaceRoot: root,
      killGraceMs: 1000,
      host,
      memoryMb: 128,
      pids: 64,
    });
    runs = runsOn(withEnvironment(executor, () => environment));
  }, 240_000);
  afterAll(async () => {
    await runs?.stop();
    await podman?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
    delete process.env.AGENTRUN_TEST_SERVER_SECRET;
  });

  const containersOf = async (runId: string) => executor.engine.list([`${LABELS.run}=${runId}`]);

  it('runs a run in a container from its environment’s image: SUCCEEDED, its lines in the transcript, nothing left', async () => {
    environment = { image };
    const runId = await runs.create(
      [
        'echo hello from the container',
        'echo \'{"agentrun":"status","message":"working"}\'',
        'id -u; id -g',
        'env | sort',
        'touch /etc/agentrun-test 2>/dev/null && echo root writable || echo root read-only',
        'echo x > /tmp/x && echo tmp writable',
        'echo y > "$AGENTRUN_WORKSPACE/out.txt" && echo workspace writable',
        'grep CapEff /proc/self/status',
        'ls /',
      ].join('\n'),
    );
    const run = await runs.settled(runId);
    expect(run.state, JSON.stringify(run.status_message)).toBe('SUCCEEDED');
    const output = await runs.output(runId);
    expect(output).toContain('hello from the container');
    expect(output).toEqual(
      expect.arrayContaining(['65534', 'root read-only', 'tmp writable', 'workspace writable', 'CapEff:\t0000000000000000']),
    );
    expect(output).toContain(`AGENTRUN_RUN_ID=${runId}`);
    expect(output).toContain('AGENTRUN_PROMPT_FILE=/workspace/prompt.md');
    // Nothing of the server's environment: only the run's own variables and the image's PATH.
    expect(output.join('\n')).not.toContain('server-canary-7f3a');
    const names = output.filter((l) => /^[A-Z_]+=/.test(l)).map((l) => l.split('=')[0]);
    expect(
      names.every((n) =>
        /^(AGENTRUN_(RUN_ID|ATTEMPT|WORKSPACE|PROMPT_FILE|MCP_CONFIG)|HOME|TMPDIR|PATH|HOSTNAME|PWD|SHLVL|container|TERM)$/.test(
          n as string,
        ),
      ),
      names.join(' '),
    ).toBe(true);
    const events = await runs.agentrun.store.runEvents.list(runId, { limit: 1000 });
    expect(events.some((e) => e.type === 'status' && (e.data as { message: string }).message === 'working')).toBe(true);
    expect(await containersOf(runId)).toEqual([]);
    expect(readdirSync(root)).toEqual([]);
  });

  it('fails a run with no image to run, saying so', async () => {
    environment = undefined;
    const runId = await runs.create('echo never');
    const run = await runs.settled(runId);
    expect(run.state).toBe('FAILED');
    expect(run.status_message).toMatchObject({ error_code: 'image_unavailable', message: expect.stringContaining('No image') });
    environment = { image: 'localhost/agentrun-no-such-image:1' };
    const other = await runs.settled(await runs.create('echo never'));
    expect(other.status_message).toMatchObject({
      error_code: 'image_unavailable',
      message: expect.stringContaining('not on the container engine'),
    });
  });

  it('ends a run FAILED with its agent’s exit code, also when the agent closed its output and ran on', async () => {
    environment = { image };
    const exited = await runs.settled(await runs.create('echo failing; exit 3'));
    expect(exited.state).toBe('FAILED');
    expect(exited.status_message).toMatchObject({ error_code: 'agent_exit', message: expect.stringContaining('code 3') });
    // Its stream ends before the container does: the exit is still the container's own.
    const closed = await runs.settled(await runs.create('exec >&- 2>&-; sleep 1; exit 4'));
    expect(closed.state).toBe('FAILED');
    expect(closed.status_message).toMatchObject({ error_code: 'agent_exit', message: expect.stringContaining('code 4') });
  });

  it('ends a run whose agent allocates past its memory limit FAILED, "out of memory"', async () => {
    environment = { image, limits: { memoryMb: 32 } };
    // The agent itself allocates (exec): the kernel kills the container's first process.
    const runId = await runs.create('echo allocating; exec dd if=/dev/zero of=/dev/null bs=200M count=1');
    const run = await runs.settled(runId);
    expect(run.state).toBe('FAILED');
    expect(run.status_message?.message).toContain('out of memory');
    expect(await containersOf(runId)).toEqual([]);
  });

  it('bounds a fork bomb by the pids limit, and the run ends', async () => {
    environment = { image, limits: { pids: 32 } };
    // The count is the shell's own glob (no fork needed once the limit is reached).
    const runId = await runs.create('bomb() { bomb | bomb & }; bomb 2>&1; sleep 1; set -- /proc/[0-9]*; echo "processes: $#"');
    const run = await runs.settled(runId);
    expect(['SUCCEEDED', 'FAILED']).toContain(run.state);
    const output = await runs.output(runId);
    expect(output.some((l) => /can't fork|Resource temporarily unavailable/.test(l))).toBe(true);
    const counted = output.map((l) => /^processes: (\d+)$/.exec(l)?.[1]).find((n) => n !== undefined);
    expect(Number(counted)).toBeGreaterThanOrEqual(1);
    expect(Number(counted)).toBeLessThanOrEqual(32);
    expect(await containersOf(runId)).toEqual([]);
  });

  it('gives the agent the run’s follow-ups on its stdin', async () => {
    environment = { image };
    const runId = await runs.create('echo waiting; read -r line; echo "heard: $line"');
    await until(async () => (await runs.output(runId)).includes('waiting'), 'the agent to wait');
    await runs.followup(runId, 'carry on');
    const run = await runs.settled(runId);
    expect(run.state, JSON.stringify(run.status_message)).toBe('SUCCEEDED');
    const heard = (await runs.output(runId)).find((l) => l.startsWith('heard: '));
    expect(JSON.parse(heard?.slice('heard: '.length) ?? '{}')).toMatchObject({ agentrun: 'followup', message: 'carry on' });
  });

  it('cancels a running run: the container is stopped and removed', async () => {
    environment = { image };
    const runId = await runs.create('echo started; sleep 600');
    await until(async () => (await runs.output(runId)).includes('started'), 'the agent to start');
    expect(await containersOf(runId)).toHaveLength(1);
    await runs.cancel(runId);
    const run = await runs.settled(runId);
    expect(run.state).toBe('CANCELLED');
    await until(async () => (await containersOf(runId)).length === 0, 'the container to go');
  });

  it('ends a run past its timeout FAILED timeout, leaving no container', async () => {
    environment = { image };
    const timed = containerExecutor({
      engine: podman.engine,
      command: ['/bin/sh', '-c', 'echo started; exec sleep 600'],
      workspaceRoot: root,
      killGraceMs: 1000,
      host,
      timeoutMs: 1500,
    });
    const other = runsOn(withEnvironment(timed, () => environment));
    try {
      const runId = await other.create('anything');
      const run = await other.settled(runId);
      expect(run.status_message).toMatchObject({ error_code: 'timeout' });
      expect(await containersOf(runId)).toEqual([]);
    } finally {
      await other.stop();
    }
  });

  it('runs the environment’s setup commands in the run’s container before its agent, with its variables', async () => {
    environment = {
      image,
      setup: ['echo setting up as $(id -u) with $GREETING', 'echo prepared > "$AGENTRUN_WORKSPACE/setup.txt"'],
      variables: { GREETING: new SecretValue('hello-var') },
    };
    const runId = await runs.create('cat setup.txt; echo agent sees $GREETING');
    const run = await runs.settled(runId);
    expect(run.state, JSON.stringify(run.status_message)).toBe('SUCCEEDED');
    const output = await runs.output(runId);
    expect(output).toEqual(expect.arrayContaining(['setting up as 65534 with hello-var', 'prepared', 'agent sees hello-var']));
    expect(output.indexOf('setting up as 65534 with hello-var')).toBeLessThan(output.indexOf('prepared'));
    environment = { image, setup: ['echo failing; exit 3'] };
    const failed = await runs.settled(await runs.create('echo never'));
    expect(failed.status_message).toMatchObject({ error_code: 'environment_setup_failed' });
    expect(await runs.output(failed.run_id)).not.toContain('never');
  });

  it('sweeps this host’s containers that no live process holds, and leaves those of live ones and of other hosts', async () => {
    const make = async (labels: Record<string, string>) =>
      executor.engine.create(undefined, {
        Image: image,
        Cmd: ['sleep', '600'],
        Env: [],
        WorkingDir: '/',
        Labels: labels,
        AttachStdin: false,
        AttachStdout: false,
        AttachStderr: false,
        OpenStdin: false,
        StdinOnce: false,
        Tty: false,
        HostConfig: { NetworkMode: 'none' },
      });
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const dead = await make({ [LABELS.host]: host, [LABELS.owner]: `${boot}/999999999/1`, [LABELS.run]: 'leftover' });
    const rebooted = await make({ [LABELS.host]: host, [LABELS.owner]: `another-boot/1/1`, [LABELS.run]: 'leftover' });
    const initStart = readFileSync('/proc/1/stat', 'utf8').split(') ')[1]?.split(' ')[19];
    const live = await make({ [LABELS.host]: host, [LABELS.owner]: `${boot}/1/${initStart}`, [LABELS.run]: 'held' });
    const elsewhere = await make({ [LABELS.host]: 'another-host', [LABELS.owner]: `${boot}/999999999/1`, [LABELS.run]: 'theirs' });
    try {
      const removed = await executor.sweep();
      expect(removed.sort()).toEqual([dead, rebooted].sort());
      const left = (await executor.engine.list([`${LABELS.run}`])).map((c) => c.id);
      expect(left).toEqual(expect.arrayContaining([live, elsewhere]));
    } finally {
      for (const id of [dead, rebooted, live, elsewhere]) await executor.engine.remove(id);
    }
  });
});
