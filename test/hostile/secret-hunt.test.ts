import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from './support/host-processes.js';
import { ISOLATION_MODES, unavailable } from './support/isolation-modes.js';
import { call, isFinal, transcript } from './support/run-api.js';
import { type SecretServer, startSecretServer } from './support/secret-server.js';
import { storeFor } from './support/stores.js';

/**
 * An agent that runs as the server's user can read AGENTRUN_SECRET_KEY, AGENTRUN_API_KEY and
 * DATABASE_URL from /proc/<server pid>/environ (walking up from $PPID) and print them into its
 * transcript. The agent can run under its own user, in a bubblewrap sandbox, or both
 * (docs/executors.md, "Isolating the agent"), and the hunt finds nothing of the server's in any
 * of them.
 *
 * A real reference server in a child process holds canaries (support/secret-server.ts): its
 * environment's secrets, a file only its user can read in its working directory, and a second
 * run's prompt in that run's workspace. The agent is support/hunter.mjs: it prints every
 * process's environ and cmdline it can read (after trying to unmount its /proc), likely secret
 * files in their working directories, its own descriptors, its workspace's parents and every
 * other workspace's files, the usual places for secrets, and the canary file by its path. The
 * run's transcript, read through the API, must hold no canary, and the hunter's count of what it
 * looked at. A mode this machine cannot give is skipped, saying why; under CI=true it fails.
 * The plain mode (no user, no sandbox) is run too: it leaks, as the docs say.
 */

/**
 * On PostgreSQL: its server holds every secret the memory store's does (the API key, the secret
 * key, a model key, a file) and DATABASE_URL and its connections besides. One server per isolation
 * mode, started with descriptors beyond 0–2 as from a launching shell or a supervisor, runs each
 * of that mode's cases.
 */
const stores = storeFor('postgres', 'secret-hunt');

describe.each(ISOLATION_MODES)('the secret hunt, under $name', (mode) => {
  const missing = unavailable(mode.needs);
  const uid = mode.options.user?.uid ?? 0;
  let server: SecretServer | undefined;

  beforeAll(async () => {
    if (missing) return;
    await stores.fresh(); // the child's schema, migrated and empty
    const database = stores.database();
    server = await startSecretServer({
      env: mode.env,
      // fds 3–14: pipes the test holds open, not close-on-exec.
      inherited: 12,
      ...(database?.url ? { database: { url: database.url, schema: database.schema } } : {}),
    });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  /** The server, or (under CI=true) the reason this machine cannot give the mode. */
  const running = (): SecretServer => {
    if (missing) throw new Error(`CI=true and ${mode.name} cannot be had here: ${missing}`);
    if (!server) throw new Error('the secret server did not start');
    return server;
  };
  const skipped = missing !== undefined && process.env.CI !== 'true';
  const because = missing ? ` (skipped: ${missing})` : '';

  /** `inSetup`: the run's environment's setup command is the hunter too (setup is untrusted code as the agent is). */
  const hunt = async ({ inSetup = false } = {}) => {
    const server = running();
    try {
      const victimCanary = `VICTIM-PROMPT-${Math.random().toString(36).slice(2)}`;
      const victim = await call(server, 'POST', '/agent/run', { prompt: `victim ${victimCanary}` });
      await until(async () => (await call(server, 'GET', `/agent/runs/${victim.run_id}`)).state === 'INPROGRESS', 'the victim to run');
      const environment = inSetup
        ? await call(server, 'POST', '/environments', { name: `hunt-${victimCanary.slice(-6)}`, setup: [server.hunterCommand] })
        : undefined;
      const hunter = await call(server, 'POST', '/agent/run', {
        prompt: `hunt\n${server.canaryFile}`,
        ...(environment ? { config: { environment_id: environment.id } } : {}),
      });
      await until(async () => isFinal((await call(server, 'GET', `/agent/runs/${hunter.run_id}`)).state), 'the hunt to end', 30_000);
      const run = await call(server, 'GET', `/agent/runs/${hunter.run_id}`);
      const lines = await transcript(server, hunter.run_id);
      await call(server, 'POST', `/agent/runs/${victim.run_id}/cancel`);
      const canaries: Record<string, string | undefined> = { ...server.canaries, victim: victimCanary };
      const found = Object.entries(canaries)
        .filter(([, value]) => value !== undefined && lines.some((line) => line.includes(value)))
        .map(([name]) => name);
      return { run, lines, found, canaries: Object.keys(canaries) };
    } catch (error) {
      console.error(server.proc.output());
      throw error;
    }
  };

  // Descriptors the server was started with (a launching shell's pipe, a supervisor's sockets)
  // are not the agent's: it has 0–2 and nothing else, in every mode.
  it.skipIf(skipped)(`leaves the agent only descriptors 0–2 of the server's${because}`, async () => {
    const server = running();
    const started = await call(server, 'POST', '/agent/run', { prompt: 'descriptors' });
    await until(async () => isFinal((await call(server, 'GET', `/agent/runs/${started.run_id}`)).state), 'the run to end', 30_000);
    const run = await call(server, 'GET', `/agent/runs/${started.run_id}`);
    expect(run.state, JSON.stringify(run.status_message)).toBe('SUCCEEDED');
    const fds = (await transcript(server, started.run_id)).flatMap((line) => /\s(\d+) -> /.exec(line)?.[1] ?? []).map(Number);
    expect(fds).toEqual([0, 1, 2]);
  });

  if (mode.name === 'plain') {
    it.skipIf(unavailable(['root', 'namespaces']) !== undefined)(
      'finds every secret: what docs/executors.md says the plain mode (no user, no sandbox) does not protect',
      async () => {
        const { run, lines, found, canaries } = await hunt();
        expect(run.state, JSON.stringify(run.status_message)).toBe('SUCCEEDED');
        expect(lines).toContain('unmounted the namespace /proc');
        expect(lines).toContain('mounted a tmpfs');
        expect(found.sort()).toEqual(canaries.sort());
      },
    );
    return;
  }

  it.skipIf(skipped)(`finds none of the server's secrets${because}`, async () => {
    const { run, lines, found } = await hunt();
    expect(run.state, JSON.stringify(run.status_message)).toBe('SUCCEEDED');
    // The hunter ran, as the mode's user, and looked (hundreds of places: every /proc entry, file and directory).
    expect(lines).toContain(`whoami: uid=${uid} gid=${uid} groups=${uid}`);
    const looked = Number(/^hunter looked at (\d+) places$/.exec(lines.at(-1) ?? '')?.[1]);
    expect(looked).toBeGreaterThan(20);
    expect(found).toEqual([]);
    // Nor can it do more than read what it is shown: no capability, no mount over it.
    expect(lines).toContain('caps: 0000000000000000');
    expect(lines).not.toContain('mounted a tmpfs');
  });

  if (mode.name !== 'its own user in the sandbox') return;
  it.skipIf(skipped)(`finds none of the server's secrets when the environment's setup hunts${because}`, async () => {
    const { run, lines, found } = await hunt({ inSetup: true });
    expect(run.state, JSON.stringify(run.status_message)).toBe('SUCCEEDED');
    // Two hunts, the setup's then the agent's, each as the agent's user, with no capability.
    expect(lines.filter((line) => line === `whoami: uid=${uid} gid=${uid} groups=${uid}`)).toHaveLength(2);
    expect(lines.filter((line) => /^hunter looked at \d+ places$/.test(line))).toHaveLength(2);
    expect(lines.filter((line) => line === 'caps: 0000000000000000')).toHaveLength(2);
    expect(found).toEqual([]);
  });
});
