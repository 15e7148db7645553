import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineAddress } from '../../packages/executor-container/src/engine-address.js';
import { engineClient } from '../../packages/executor-container/src/engine-client.js';
import { LABELS } from '../../packages/executor-container/src/index.js';
import {
  busyboxImage,
  nodeImage,
  type Podman,
  podmanUnavailable,
  startPodman,
} from '../../packages/executor-container/test/support/podman.js';
import { until } from './support/host-processes.js';
import { call, isFinal, transcript } from './support/run-api.js';
import { type SecretServer, startSecretServer } from './support/secret-server.js';
import { storeFor } from './support/stores.js';

/**
 * The container executor in a reference server (`AGENTRUN_EXECUTOR=container`, on PostgreSQL)
 * against a real Podman (docs/executors.md, "The container executor"): the secret hunt of
 * secret-hunt.test.ts run in a run's container finds none of the server's canaries (its variables,
 * its files, another run's prompt); the agent reaches neither the server's port nor PostgreSQL
 * (network none); and a server killed with SIGKILL mid-run leaves a container that the next
 * server of the host removes as it starts, while the run comes back by its lapsed lease. One
 * engine and one image (Node, the hunter, the probe) for the file.
 */
const missing = podmanUnavailable();
const skipped = missing !== undefined && process.env.CI !== 'true';
const stores = storeFor('postgres', 'container-hunt');

/** The agent's command in the image: the prompt's first line says which. */
const AGENT = [
  'case "$(head -n 1 "$AGENTRUN_PROMPT_FILE")" in',
  '  descriptors) ls -l /proc/$$/fd ;;',
  '  image) echo "node here: $(command -v node || echo none)"; echo \'{"agentrun":"status","message":"from the environment"}\' ;;',
  '  memory) echo allocating; exec dd if=/dev/zero of=/dev/null bs=200M count=1 ;;',
  '  network) exec node /opt/agentrun-test/reach.mjs ;;',
  '  attempts) if [ "$AGENTRUN_ATTEMPT" = 1 ]; then echo first attempt; exec sleep 600; fi; echo "attempt $AGENTRUN_ATTEMPT" ;;',
  '  *) exec node /opt/agentrun-test/hunter.mjs ;;',
  'esac',
].join('\n');

describe.skipIf(skipped)(`the container executor in a reference server${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let podman: Podman;
  let image: string;
  let busybox: string;
  let server: SecretServer | undefined;

  const start = () => {
    const database = stores.database();
    if (!database?.url) throw new Error('these cases need PostgreSQL (a server in another process)');
    return startSecretServer({
      database: { url: database.url, schema: database.schema },
      env: {
        AGENTRUN_EXECUTOR: 'container',
        DOCKER_HOST: podman.engine,
        AGENTRUN_CONTAINER_IMAGE: image,
        AGENTRUN_CONTAINER_COMMAND: AGENT,
        AGENTRUN_CONTAINER_MEMORY_MB: '256',
        AGENTRUN_AGENT_KILL_GRACE_MS: '1000',
      },
    });
  };

  beforeAll(async () => {
    if (missing) throw new Error(`CI=true and Podman cannot be had here: ${missing}`);
    podman = await startPodman();
    image = nodeImage(podman, {
      files: {
        '/opt/agentrun-test/hunter.mjs': fileURLToPath(new URL('./support/hunter.mjs', import.meta.url)),
        '/opt/agentrun-test/reach.mjs': fileURLToPath(new URL('./support/reach.mjs', import.meta.url)),
      },
    });
    busybox = busyboxImage(podman);
    await stores.fresh();
    server = await start();
  }, 240_000);
  afterAll(async () => {
    await server?.stop();
    await podman?.stop();
  });

  const engine = () => engineClient(engineAddress(podman.engine));
  const containersOf = (runId: string) => engine().list([`${LABELS.run}=${runId}`]);
  const running = () => {
    if (!server) throw new Error('the server did not start');
    return server;
  };
  const ended = async (runId: string) => {
    await until(async () => isFinal((await call(running(), 'GET', `/agent/runs/${runId}`)).state), `run ${runId} to end`, 60_000);
    return call(running(), 'GET', `/agent/runs/${runId}`);
  };

  it('hunts in its container and finds none of the server’s secrets, as nobody without capabilities', async () => {
    const s = running();
    const victimCanary = `VICTIM-PROMPT-${Math.random().toString(36).slice(2)}`;
    const victim = await call(s, 'POST', '/agent/run', { prompt: `victim ${victimCanary}` });
    await until(async () => (await containersOf(victim.run_id)).length === 1, 'the victim’s container');
    const hunter = await call(s, 'POST', '/agent/run', { prompt: `hunt\n${s.canaryFile}` });
    const run = await ended(hunter.run_id);
    const lines = await transcript(s, hunter.run_id);
    await call(s, 'POST', `/agent/runs/${victim.run_id}/cancel`);
    expect(run.state, JSON.stringify(run.status_message)).toBe('SUCCEEDED');
    expect(lines).toContain('whoami: uid=65534 gid=65534 groups=65534');
    expect(lines).toContain('caps: 0000000000000000');
    expect(lines).not.toContain('mounted a tmpfs');
    const looked = Number(/^hunter looked at (\d+) places$/.exec(lines.at(-1) ?? '')?.[1]);
    expect(looked).toBeGreaterThan(20);
    const canaries: Record<string, string | undefined> = { ...s.canaries, victim: victimCanary };
    const found = Object.entries(canaries).filter(([, value]) => value !== undefined && lines.some((line) => line.includes(value)));
    expect(found.map(([name]) => name)).toEqual([]);
    await until(async () => (await containersOf(victim.run_id)).length === 0, 'the victim’s container to go');
  });

  it('runs a run in its environment’s image (not the server’s default), and fails it "out of memory" past the environment’s limit', async () => {
    const s = running();
    const boxed = await call(s, 'POST', '/environments', { name: 'boxed', image: busybox, limits: { memory_mb: 32 } });
    const run = await ended((await call(s, 'POST', '/agent/run', { prompt: 'image', config: { environment_id: boxed.id } })).run_id);
    expect(run.state, JSON.stringify(run.status_message)).toBe('SUCCEEDED');
    // The busybox image holds no Node, the server's default image does.
    expect(await transcript(s, run.run_id)).toContain('node here: none');
    const events = await call(s, 'GET', `/agent/runs/${run.run_id}/events?limit=1000`);
    expect(events.events.some((e: { type: string; data: { message?: string } }) => e.data.message === 'from the environment')).toBe(true);
    const hog = await ended((await call(s, 'POST', '/agent/run', { prompt: 'memory', config: { environment_id: boxed.id } })).run_id);
    expect(hog.state).toBe('FAILED');
    expect(hog.status_message).toMatchObject({ error_code: 'out_of_memory', message: expect.stringContaining('out of memory') });
    expect(hog.status_message.message).toContain('32 MiB');
    expect(await containersOf(hog.run_id)).toEqual([]);
  });

  it('leaves the agent only descriptors 0–2', async () => {
    const s = running();
    const run = await ended((await call(s, 'POST', '/agent/run', { prompt: 'descriptors' })).run_id);
    expect(run.state, JSON.stringify(run.status_message)).toBe('SUCCEEDED');
    const fds = (await transcript(s, run.run_id)).flatMap((line) => /\s(\d+) -> /.exec(line)?.[1] ?? []).map(Number);
    expect(fds).toEqual([0, 1, 2]);
  });

  it('reaches neither the server’s port nor PostgreSQL: the network is none', async () => {
    const s = running();
    const port = new URL(s.url).port;
    const run = await ended(
      (await call(s, 'POST', '/agent/run', { prompt: `network\n127.0.0.1:${port}\n127.0.0.1:5432\nlocalhost:${port}` })).run_id,
    );
    expect(run.state, JSON.stringify(run.status_message)).toBe('SUCCEEDED');
    const lines = await transcript(s, run.run_id);
    expect(lines).toContain('probe done');
    expect(lines.filter((l) => l.startsWith('reached'))).toEqual([]);
    expect(lines.filter((l) => l.startsWith('unreachable'))).toHaveLength(3);
  });

  it('after a SIGKILL of the server mid-run, the next server of the host removes the container, and the run comes back by its lease', async () => {
    const first = running();
    const started = await call(first, 'POST', '/agent/run', { prompt: 'attempts' });
    await until(async () => (await transcript(first, started.run_id)).includes('first attempt'), 'the first attempt to start', 30_000);
    const [leftover] = await containersOf(started.run_id);
    expect(leftover?.labels[LABELS.attempt]).toBe('1');
    process.kill(first.proc.pid as number, 'SIGKILL');
    await first.proc.exited;
    // The server is gone; its container is not.
    expect((await containersOf(started.run_id)).map((c) => c.id)).toEqual([leftover?.id]);
    await first.stop();
    server = await start();
    await until(async () => (await containersOf(started.run_id)).length === 0, 'the next server to remove the leftover', 30_000);
    // The lease lapses (30 s by default; made to lapse now): the run is queued again and runs again.
    const pool = stores.database()?.newPool?.(1);
    if (!pool) throw new Error('no PostgreSQL pool');
    try {
      const schema = stores.database()?.schema as string;
      await pool.query(`UPDATE "${schema}".runs SET lease_expires_at = now() - interval '1 second' WHERE lease_worker_id IS NOT NULL`);
    } finally {
      await pool.end();
    }
    const run = await ended(started.run_id);
    expect(run.state, JSON.stringify(run.status_message)).toBe('SUCCEEDED');
    const lines = await transcript(running(), started.run_id);
    expect(lines).toContain('attempt 2');
    const events = await call(running(), 'GET', `/agent/runs/${started.run_id}/events?limit=1000`);
    expect(JSON.stringify(events)).toContain('The worker stopped responding; the run was re-queued');
    expect(await containersOf(started.run_id)).toEqual([]);
  });
});
