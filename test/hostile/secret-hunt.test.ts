import { describe, expect, it } from 'vitest';
import { until } from './support/host-processes.js';
import { ISOLATION_MODES, unavailable } from './support/isolation-modes.js';
import { type SecretServer, startSecretServer } from './support/secret-server.js';
import { HOSTILE_STORES, storeFor } from './support/stores.js';

/**
 * Issue 20, point 1: an agent read AGENTRUN_SECRET_KEY, AGENTRUN_API_KEY and DATABASE_URL from
 * /proc/<server pid>/environ (walking up from $PPID), and they landed in its transcript. Now the
 * agent can run under its own user, in a bubblewrap sandbox, or both (docs/executors.md,
 * "Isolating the agent"), and the hunt finds nothing of the server's in any of them.
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

const NOBODY = '65534:65534';
const MODES = [
  { name: 'its own user', env: { AGENTRUN_AGENT_USER: NOBODY }, needs: ['root', 'namespaces'], uid: 65534 },
  { name: 'the sandbox', env: { AGENTRUN_AGENT_SANDBOX: 'bubblewrap' }, needs: ['bwrap', 'namespaces'], uid: 0 },
  {
    name: 'its own user in the sandbox',
    env: { AGENTRUN_AGENT_USER: NOBODY, AGENTRUN_AGENT_SANDBOX: 'bubblewrap' },
    needs: ['root', 'bwrap', 'namespaces'],
    uid: 65534,
  },
] as const;

describe.each(HOSTILE_STORES)('the secret hunt, on %s', (kind) => {
  const stores = storeFor(kind, 'secret-hunt');

  /** `inSetup`: the run's environment's setup command is the hunter too (issue 22: setup is untrusted code as the agent is). */
  const hunt = async (env: Record<string, string>, { inSetup = false } = {}) => {
    await stores.fresh(); // the child's schema, migrated and empty
    const database = stores.database();
    const server = await startSecretServer({ env, ...(database?.url ? { database: { url: database.url, schema: database.schema } } : {}) });
    try {
      const victimCanary = `VICTIM-PROMPT-${Math.random().toString(36).slice(2)}`;
      const victim = await call(server, 'POST', '/agent/run', { prompt: `victim ${victimCanary}` });
      await until(async () => (await call(server, 'GET', `/agent/runs/${victim.run_id}`)).state === 'INPROGRESS', 'the victim to run');
      const environment = inSetup
        ? await call(server, 'POST', '/environments', { name: 'hunt', setup: [server.hunterCommand] })
        : undefined;
      const hunter = await call(server, 'POST', '/agent/run', {
        prompt: `hunt\n${server.canaryFile}`,
        ...(environment ? { config: { environment_id: environment.id } } : {}),
      });
      await until(async () => isFinal((await call(server, 'GET', `/agent/runs/${hunter.run_id}`)).state), 'the hunt to end', 30_000);
      const run = await call(server, 'GET', `/agent/runs/${hunter.run_id}`);
      const lines = await transcript(server, hunter.run_id);
      await call(server, 'POST', `/agent/runs/${victim.run_id}/cancel`);
      const canaries = { ...server.canaries, victim: victimCanary };
      const found = Object.entries(canaries)
        .filter(([, value]) => lines.some((line) => line.includes(value)))
        .map(([name]) => name);
      return { run, lines, found, server };
    } catch (error) {
      console.error(server.proc.output());
      throw error;
    } finally {
      await server.stop();
    }
  };

  for (const mode of MODES) {
    const missing = unavailable(mode.needs);
    it.skipIf(missing !== undefined && process.env.CI !== 'true')(
      `finds none of the server's secrets when the agent runs under ${mode.name}${missing ? ` (skipped: ${missing})` : ''}`,
      async () => {
        if (missing) throw new Error(`CI=true and ${mode.name} cannot be had here: ${missing}`);
        const { run, lines, found } = await hunt(mode.env);
        expect(run.state, JSON.stringify(run.status_message)).toBe('SUCCEEDED');
        // The hunter ran, as the mode's user, and looked (hundreds of places: every /proc entry, file and directory).
        expect(lines).toContain(`whoami: uid=${mode.uid} gid=${mode.uid} groups=${mode.uid}`);
        const looked = Number(/^hunter looked at (\d+) places$/.exec(lines.at(-1) ?? '')?.[1]);
        expect(looked).toBeGreaterThan(20);
        expect(found).toEqual([]);
        // Nor can it do more than read what it is shown: no capability, no mount over it.
        expect(lines).toContain('caps: 0000000000000000');
        expect(lines).not.toContain('mounted a tmpfs');
      },
      60_000,
    );
  }

  // Descriptors the server was started with (fds 3–14: a launching shell's pipe, a supervisor's
  // sockets) are not the agent's: it has 0–2 and nothing else, in every mode.
  for (const mode of ISOLATION_MODES) {
    const missing = unavailable(mode.needs);
    it.skipIf(missing !== undefined && process.env.CI !== 'true')(
      `leaves the agent only descriptors 0–2 of the server's, ${mode.name}${missing ? ` (skipped: ${missing})` : ''}`,
      async () => {
        if (missing) throw new Error(`CI=true and ${mode.name} cannot be had here: ${missing}`);
        await stores.fresh();
        const database = stores.database();
        const server = await startSecretServer({
          // The shell's own descriptors while ls runs: what the agent holds.
          env: { ...mode.env, AGENTRUN_AGENT_COMMAND: 'ls -l /proc/$$/fd' },
          inherited: 12,
          ...(database?.url ? { database: { url: database.url, schema: database.schema } } : {}),
        });
        try {
          const started = await call(server, 'POST', '/agent/run', { prompt: 'descriptors' });
          await until(async () => isFinal((await call(server, 'GET', `/agent/runs/${started.run_id}`)).state), 'the run to end', 30_000);
          const run = await call(server, 'GET', `/agent/runs/${started.run_id}`);
          expect(run.state, JSON.stringify(run.status_message)).toBe('SUCCEEDED');
          const fds = (await transcript(server, started.run_id)).flatMap((line) => /\s(\d+) -> /.exec(line)?.[1] ?? []).map(Number);
          expect(fds).toEqual([0, 1, 2]);
        } finally {
          await server.stop();
        }
      },
      60_000,
    );
  }

  const isolated = MODES[2];
  const setupMissing = unavailable(isolated.needs);
  it.skipIf(setupMissing !== undefined && process.env.CI !== 'true')(
    `finds none of the server's secrets when the environment's setup hunts, under ${isolated.name}${setupMissing ? ` (skipped: ${setupMissing})` : ''}`,
    async () => {
      if (setupMissing) throw new Error(`CI=true and ${isolated.name} cannot be had here: ${setupMissing}`);
      const { run, lines, found } = await hunt(isolated.env, { inSetup: true });
      expect(run.state, JSON.stringify(run.status_message)).toBe('SUCCEEDED');
      // Two hunts, the setup's then the agent's, each as the agent's user, with no capability.
      expect(lines.filter((line) => line === `whoami: uid=${isolated.uid} gid=${isolated.uid} groups=${isolated.uid}`)).toHaveLength(2);
      expect(lines.filter((line) => /^hunter looked at \d+ places$/.test(line))).toHaveLength(2);
      expect(lines.filter((line) => line === 'caps: 0000000000000000')).toHaveLength(2);
      expect(found).toEqual([]);
    },
    60_000,
  );

  it.skipIf(unavailable(['root', 'namespaces']) !== undefined)(
    'in the plain mode (no user, no sandbox) the hunt finds every secret: what docs/executors.md says it does not protect',
    async () => {
      const { run, lines, found } = await hunt({});
      expect(run.state, JSON.stringify(run.status_message)).toBe('SUCCEEDED');
      expect(lines).toContain('unmounted the namespace /proc');
      expect(lines).toContain('mounted a tmpfs');
      expect(found.sort()).toEqual(['apiKey', 'database', 'file', 'secretKey', 'victim']);
    },
    60_000,
  );
});

const isFinal = (state: string) => ['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'].includes(state);

/** One call to the server's run API, its JSON (or text) answer; throws on a status that is not 200. */
async function call(server: SecretServer, method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${server.apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (response.status !== 200 && response.status !== 201) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
}

/** Every output line of the run's transcript, page by page through the API. */
async function transcript(server: SecretServer, runId: string): Promise<string[]> {
  const lines: string[] = [];
  let after: string | number | undefined;
  for (;;) {
    const page = await call(server, 'GET', `/agent/runs/${runId}/events?limit=1000${after !== undefined ? `&after=${after}` : ''}`);
    for (const event of page.events) if (event.type === 'output') lines.push(event.data.text);
    if (!page.page_info.has_next_page) return lines;
    after = page.page_info.next_cursor;
  }
}
