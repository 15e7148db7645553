import { mkdtempSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentRun, createAgentRun, createApiKey, type RunItem } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { type Containment, type ProcessExecutorOptions, processExecutor } from '@agentrun/executor-process';
import { gitSources } from '@agentrun/git-sources';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpGitServer, httpGitServer } from '../../packages/git-sources/test/support/http-git-server.js';
import { removeTempDirs, tempDir, testRepository } from '../../packages/git-sources/test/support/repositories.js';
import { processesWith, until } from './support/host-processes.js';
import { HOSTILE_STORES, storeFor } from './support/stores.js';
import { testScope } from './support/test-scope.js';

/**
 * The process executor prepares a run's workspace from its environment
 * (docs/repositories.md, "Environments"; docs/executors.md, "Environments"). Real repositories (a
 * bare one on disk, and one over smart HTTP behind a token, registered for the team), a real
 * process executor, an agent that lists its workspace. A setup that fails, floods, hangs or looks
 * for the server's environment is untrusted code like the agent: it gets the same treatment.
 */

const principal = testPrincipal();
const KEY = Buffer.alloc(32, 7).toString('base64');
const TOKEN = 'git-http-token-4b1d';
const HEADER = `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;
const NPM_TOKEN = 'npm-token-value-93c2';
/** In the test process's (the server's) environment: no setup command may see it. */
const CANARY = 'server-canary-5f7e0c';

/** Lists the workspace's files and shows what the setup left. */
const AGENT = ['find . -type f | sort', 'cat setup-was-here.txt 2>/dev/null || echo no setup file', 'echo agent done'].join('\n');

let origin: string;
let web: ReturnType<typeof testRepository>;
let tools: ReturnType<typeof testRepository>;
/** A repository holding a symbolic link to a file of the server's (root's) outside the workspace. */
let links: ReturnType<typeof testRepository>;
let outside: string;
let http: HttpGitServer;
const cacheDir = () => tempDir('cache');

beforeAll(async () => {
  origin = tempDir('origin');
  web = testRepository(origin, 'web');
  web.commit({ 'README.md': 'the web repository\n', 'src/app.js': 'console.log(1)\n' });
  tools = testRepository(origin, 'tools');
  tools.commit({ 'bin/tool.sh': 'echo tool\n' });
  tools.tag('v1');
  outside = join(tempDir('outside'), 'server-file');
  writeFileSync(outside, 'the server owns this\n');
  links = testRepository(origin, 'links');
  symlinkSync(outside, join(origin, 'links-work', 'server-file'));
  links.commit({ 'note.txt': 'a link beside\n' });
  http = await httpGitServer(origin, HEADER);
  process.env.AGENTRUN_TEST_SERVER_CANARY = CANARY;
});
afterAll(async () => {
  await http?.close();
  delete process.env.AGENTRUN_TEST_SERVER_CANARY;
  removeTempDirs();
});

describe.each(HOSTILE_STORES)("an environment's workspace, on %s", (kind) => {
  const stores = storeFor(kind, 'environment-setup');
  const scope = testScope();

  const start = async (extra: Partial<ProcessExecutorOptions> = {}) => {
    scope.root = mkdtempSync(join(tmpdir(), 'agentrun-hostile-environment-'));
    const store = await stores.fresh();
    const executor = processExecutor({
      command: AGENT,
      shell: true,
      workspaceRoot: scope.root,
      killGraceMs: 1000,
      repositories: gitSources({ cacheDir: cacheDir(), allowLocalPaths: true }),
      onError: () => {},
      ...extra,
    });
    const agentrun = createAgentRun({ store, executor, secretKey: KEY });
    const key = await createApiKey(store.apiKeys, principal);
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await agentrun.fetch(
        new Request(`http://agentrun.test/api/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      );
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
      return (text === '' ? undefined : JSON.parse(text)) as Record<string, string>;
    };
    await api('PUT', '/team/secrets/npm-token', { value: NPM_TOKEN });
    await api('PUT', '/team/secrets/git-read', { value: TOKEN });
    await api('POST', '/repositories', { name: 'acme/tools', url: `${http.url}/tools.git`, credential_secret: 'git-read' });
    scope.worker = agentrun.worker({ concurrency: 1, pollIntervalMs: 20 });
    scope.worker.start();
    return { agentrun, api };
  };
  const runIn = async (agentrun: AgentRun, api: Awaited<ReturnType<typeof start>>['api'], environment: Record<string, unknown>) => {
    const { id } = await api('POST', '/environments', { name: `env-${Math.random().toString(36).slice(2)}`, ...environment });
    const runId = (await agentrun.services.runs.create(principal, { prompt: 'list', config: { environment_id: id } })).body.run_id;
    let run: RunItem = await agentrun.services.runs.get(principal, runId);
    await until(
      async () => {
        run = await agentrun.services.runs.get(principal, runId);
        return ['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'].includes(run.state);
      },
      `run ${runId} to end`,
      15_000,
    );
    const events = await agentrun.store.runEvents.list(runId, { limit: 10_000 });
    const output = events.filter((e) => e.type === 'output').map((e) => (e.data as { text: string }).text);
    return { run, events, output, all: JSON.stringify(events) };
  };

  it('clones the repositories (on disk, and over HTTP with the team credential), runs the setup with its variables, and the agent sees the files', async () => {
    const { agentrun, api } = await start();
    const { run, output, all } = await runIn(agentrun, api, {
      repositories: [
        { repository: `file://${web.bare}`, ref: 'main' },
        { repository: 'acme/tools', ref: 'v1', directory: 'vendor/tools' },
      ],
      setup: ['cat web/README.md > setup-was-here.txt', 'echo "npm token: $NPM_TOKEN"', 'echo "server: $AGENTRUN_TEST_SERVER_CANARY."'],
      variables: { NPM_TOKEN: 'npm-token' },
    });
    expect(run.state, JSON.stringify(run.status_message)).toBe('SUCCEEDED');
    expect(output).toEqual(
      expect.arrayContaining(['./web/README.md', './web/src/app.js', './vendor/tools/bin/tool.sh', 'the web repository']),
    );
    expect(output.some((line) => line.startsWith('./web/.git'))).toBe(false);
    // The variable reached the setup command; the worker kept its value out of the transcript.
    expect(output).toContain('npm token: [secret]');
    expect(all).not.toContain(NPM_TOKEN);
    expect(all).not.toContain(TOKEN);
    // The server's own environment did not.
    expect(output).toContain('server: .');
    expect(all).not.toContain(CANARY);
    expect(all).toContain('Cloning acme/tools at v1 into vendor/tools');
    expect(all).toContain('Setup 1/3: cat web/README.md > setup-was-here.txt');
    // The HTTP server saw the token (as a header): the credential was the registered repository's.
    expect(http.requests.some((r) => r.path.startsWith('/tools.git') && r.authorization === HEADER)).toBe(true);
    expect(readdirSync(scope.root as string)).toEqual([]);
  });

  it('fails the run with environment_setup_failed and the setup output tail when a command fails, and never starts the agent', async () => {
    const { agentrun, api } = await start();
    const { run, output } = await runIn(agentrun, api, {
      repositories: [{ repository: `file://${web.bare}` }],
      setup: ['echo first step', 'echo "about to fail with $NPM_TOKEN"; echo "details on stderr" >&2; exit 3', 'echo never'],
      variables: { NPM_TOKEN: 'npm-token' },
    });
    expect(run.state).toBe('FAILED');
    expect(run.status_message?.error_code).toBe('environment_setup_failed');
    expect(run.status_message?.message).toContain('Setup command 2 of 3 exited with code 3');
    // The tail, with the variable's value redacted as the transcript's lines are.
    expect(run.status_message?.message).toContain('about to fail with [secret]');
    expect(run.status_message?.message).toContain('details on stderr');
    expect(JSON.stringify(run)).not.toContain(NPM_TOKEN);
    expect(output).toEqual(expect.arrayContaining(['first step', 'about to fail with [secret]', 'details on stderr']));
    expect(output).not.toContain('never');
    expect(output).not.toContain('agent done');
    expect(readdirSync(scope.root as string)).toEqual([]);
  });

  it('fails with environment_setup_failed when a repository cannot be cloned', async () => {
    const { agentrun, api } = await start();
    const { run, output } = await runIn(agentrun, api, {
      repositories: [{ repository: `file://${web.bare}`, ref: 'no-such-branch' }],
      setup: ['echo never'],
    });
    expect(run.state).toBe('FAILED');
    expect(run.status_message).toMatchObject({ error_code: 'environment_setup_failed' });
    expect(run.status_message?.message).toContain('Cloning file://');
    expect(run.status_message?.message).toContain('no-such-branch');
    expect(output).not.toContain('never');
  });

  it('fails a run whose registered repository was unregistered since with environment_unavailable, without setup', async () => {
    const { agentrun, api } = await start();
    await api('POST', '/repositories', { name: 'acme/gone', url: `file://${web.bare}` });
    const { id } = await api('POST', '/environments', { name: 'gone', repositories: [{ repository: 'acme/gone' }], setup: ['echo never'] });
    await api('DELETE', '/repositories/acme/gone');
    const runId = (await agentrun.services.runs.create(principal, { prompt: 'list', config: { environment_id: id } })).body.run_id;
    await until(async () => (await agentrun.services.runs.get(principal, runId)).state === 'FAILED', 'the run to fail');
    const run = await agentrun.services.runs.get(principal, runId);
    expect(run.status_message).toEqual({
      message: 'environment gone: repository acme/gone is no longer registered',
      error_code: 'environment_unavailable',
    });
    expect(JSON.stringify(await agentrun.store.runEvents.list(runId, { limit: 100 }))).not.toContain('never');
  });

  it("refuses a directory that would hold the workspace's own files", async () => {
    const { agentrun, api } = await start();
    const { run } = await runIn(agentrun, api, { repositories: [{ repository: `file://${web.bare}`, directory: 'attachments/web' }] });
    expect(run.state).toBe('FAILED');
    expect(run.status_message).toMatchObject({ error_code: 'environment_setup_failed' });
    expect(run.status_message?.message).toContain("directory attachments/web would hold the workspace's own attachments");
  });

  it("ends the run at the executor's timeout, which counts the setup", async () => {
    const { agentrun, api } = await start({ timeoutMs: 1000 });
    const { run, output } = await runIn(agentrun, api, { setup: ['echo slow setup; exec sleep 3600'] });
    expect(run.state).toBe('FAILED');
    expect(run.status_message).toEqual({ message: "The agent ran longer than 1000 ms, in the environment's setup", error_code: 'timeout' });
    expect(output).toContain('slow setup');
    expect(output).not.toContain('agent done');
  });

  it('keeps a flooding setup within the output budget, then runs the agent', async () => {
    const maxOutputBytes = 64 * 1024;
    const { agentrun, api } = await start({ maxOutputBytes });
    const { run, events, output } = await runIn(agentrun, api, {
      setup: ['yes "flood line from the setup" | head -c 20000000', 'echo after the flood'],
    });
    expect(run.state, JSON.stringify(run.status_message)).toBe('SUCCEEDED');
    const bytes = output.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
    expect(bytes).toBeLessThanOrEqual(maxOutputBytes);
    expect(
      events.filter((e) => e.type === 'status' && String((e.data as { message: string }).message).startsWith('Output truncated after')),
    ).toHaveLength(1);
    // The budget is the execution's: past it, neither the setup's later lines nor the agent's are kept.
    expect(output).not.toContain('after the flood');
    expect(output).not.toContain('agent done');
  });

  it.each(['pid-namespace', 'process-group'] satisfies Containment[])(
    'kills a setup that hangs at its timeout, with its descendants (%s)',
    async (containment) => {
      const { agentrun, api } = await start({ containment });
      const { run } = await runIn(agentrun, api, {
        setup: ['setsid sh -c "exec sleep 3600" </dev/null >/dev/null 2>&1 & echo hanging; exec sleep 3600'],
        setup_timeout_seconds: 1,
      });
      expect(run.state).toBe('FAILED');
      expect(run.status_message).toMatchObject({ error_code: 'environment_setup_failed' });
      expect(run.status_message?.message).toContain('took longer than 1 s');
      expect(run.status_message?.message).toContain('hanging');
      await until(() => processesWith(`AGENTRUN_WORKSPACE=${scope.root}`).length === 0, 'the setup and its descendant to be gone');
      expect(readdirSync(scope.root as string)).toEqual([]);
    },
  );

  it('stops a setup at a cancel, with its descendants, and never starts the agent', async () => {
    const { agentrun, api } = await start();
    const { id } = await api('POST', '/environments', {
      name: 'hangs',
      setup: ['setsid sh -c "exec sleep 3600" </dev/null >/dev/null 2>&1 & echo waiting; exec sleep 3600'],
    });
    const runId = (await agentrun.services.runs.create(principal, { prompt: 'list', config: { environment_id: id } })).body.run_id;
    await until(async () => {
      const events = await agentrun.store.runEvents.list(runId, { limit: 100 });
      return events.some((e) => e.type === 'output' && (e.data as { text: string }).text === 'waiting');
    }, 'the setup to start');
    await agentrun.services.runs.cancel(principal, runId);
    await until(() => processesWith(`AGENTRUN_WORKSPACE=${scope.root}`).length === 0, 'the setup and its descendant to be gone');
    await until(async () => readdirSync(scope.root as string).length === 0, 'the workspace to be removed');
    expect((await agentrun.services.runs.get(principal, runId)).state).toBe('CANCELLED');
    const events = await agentrun.store.runEvents.list(runId, { limit: 100 });
    expect(JSON.stringify(events)).not.toContain('agent done');
  });

  // As root with bubblewrap (this machine and CI): the setup runs as the agent's user, in its sandbox.
  it.skipIf(process.getuid?.() !== 0)('runs the setup as the agent runs: its own user, in the sandbox, owning the clones', async () => {
    const { agentrun, api } = await start({ user: { uid: 65534, gid: 65534 }, sandbox: 'bubblewrap' });
    const { run, output } = await runIn(agentrun, api, {
      repositories: [{ repository: `file://${web.bare}` }, { repository: `file://${links.bare}` }],
      setup: [
        'echo "setup uid $(id -u)"',
        'touch web/made-by-setup && echo wrote into the clone',
        'ls /root >/dev/null 2>&1 && echo sees /root || echo no /root',
        'cat web/README.md > setup-was-here.txt',
      ],
    });
    expect(run.state, JSON.stringify(run.status_message)).toBe('SUCCEEDED');
    expect(output).toEqual(
      expect.arrayContaining(['setup uid 65534', 'wrote into the clone', 'no /root', './web/made-by-setup', 'the web repository']),
    );
    // The clones were given to the agent's user link by link: the file a link points to stays the server's.
    expect(output).toContain('./links/note.txt');
    expect(statSync(outside).uid).toBe(0);
  });
});
