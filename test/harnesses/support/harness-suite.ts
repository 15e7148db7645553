import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { processesWith, until } from '../../hostile/support/host-processes.js';
import { ISOLATION_MODES, type IsolationMode, unavailable } from '../../hostile/support/isolation-modes.js';
import { HOSTILE_STORES, storeFor } from '../../hostile/support/stores.js';
import { testScope } from '../../hostile/support/test-scope.js';
import { freePort } from '../../support/free-port.js';
import type { Step } from '../../support/model-server/script.js';
import type { CliProfile } from './cli-profiles.js';
import { API_KEY, filesHolding, harnessCase, principal } from './harness-case.js';
import { followStream } from './sse.js';

/** What the model does: a shell command, a file written, a final text; then the follow-up's answer. */
const SCRIPT: Step[] = [{ shell: 'echo hi > from-shell.txt' }, { write: { path: 'notes.md', content: '# Notes\n' } }, { text: 'All done' }];
const BASE = 'BASE-PROMPT-4d1f: answer in haiku';
const FOLLOWUP = 'FOLLOWUP-8c2e: and the tests?';
/** The follow-up's answer, whether the CLI resumed its session (a fourth turn) or started one told the conversation (Gemini CLI). */
const ANSWER = [{ when: 'FOLLOWUP-8c2e', step: { text: 'Follow-up answered' } }];
/** A CLI's failure as a run's status says it: the CLI named, then its words (or its exit). */
const failedMessage = (cli: CliProfile) => new RegExp(`^${cli.type} (failed: \\S|exited with)`);
/**
 * The isolation mode of the full case on each store: both modes and both stores, each once. The
 * mode is what the CLI meets (its home, its user, the sandbox's network to the model server); the
 * store is what the run's events, its live stream and the follow-up go through; neither changes
 * what the other does.
 */
const MODE_ON = {
  memory: 'plain',
  postgres: 'its own user in the sandbox',
} as const satisfies Record<(typeof HOSTILE_STORES)[number], string>;

/** A process's command line, its arguments each ended by NUL ('' once it is gone). */
function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1');
  } catch {
    return '';
  }
}

/**
 * The end-to-end cases every harness passes (docs/harnesses.md, "Testing"): the real CLI, through
 * the run API, against the scripted model server. The full case runs plain on the memory store and
 * in the sandbox under a user of its own on PostgreSQL; a cancel and a model server that is down or
 * answers garbage, on PostgreSQL (the store only writes what the CLI's end says; the hostile suite
 * cancels agents on both).
 */
export function describeHarness(cli: CliProfile): void {
  describe.each(HOSTILE_STORES)(`the ${cli.type} harness on %s`, (kind) => {
    const stores = storeFor(kind, `harness_${cli.type}`);
    const scope = testScope();
    const mode = ISOLATION_MODES.find((m) => m.name === MODE_ON[kind]) as IsolationMode;

    const missing = unavailable(mode.needs);
    it.skipIf(missing !== undefined && process.env.CI !== 'true')(
      `${mode.name}: runs a shell command and a file edit, streams each tool call and result live, succeeds with the final text and usage; a follow-up continues the session`,
      async () => {
        const c = await harnessCase(scope, await stores.fresh(), cli, SCRIPT, mode.options, ANSWER);
        const runId = await c.start('Make the files', {
          base_prompt: BASE,
          mcp_servers: { 'probe-7a1c': { command: 'node', args: ['/opt/probe-7a1c/server.mjs'] } },
          idle_timeout_minutes: 5,
        });
        const live = followStream(c.api, runId);
        const run = await c.ended(runId);
        expect(run.state, JSON.stringify(run.status_message)).toBe('SUCCEEDED');
        expect(run.status_message?.message).toBe('All done');
        expect(run.request_usage?.input_tokens).toBeGreaterThan(0);
        expect(run.request_usage?.output_tokens).toBeGreaterThan(0);

        // The transcript: each tool call, then its result, then the text, in the order the CLI told them.
        const events = await c.events(runId);
        const told = events.filter((e) => e.type === 'tool_call' || e.type === 'tool_result' || e.type === 'output');
        expect(told.map((e) => e.type)).toEqual(['tool_call', 'tool_result', 'tool_call', 'tool_result', 'output']);
        expect(told[1]?.data.call_id).toBe(told[0]?.data.call_id);
        expect(told[3]?.data.call_id).toBe(told[2]?.data.call_id);
        expect(JSON.stringify(told[0]?.data.input)).toContain('from-shell.txt');
        expect(JSON.stringify(told[2]?.data.input)).toContain('notes.md');
        expect(told[4]?.data).toEqual({ text: 'All done' });
        expect(events.find((e) => e.type === 'status' && e.data.session_id !== undefined)).toBeDefined();
        // …and the live stream had them as they came, the same events.
        const streamed = await live.until((e) => e.type === 'state' && (e.data as { to?: string }).to === 'SUCCEEDED');
        expect(streamed.filter((e) => e.type !== 'state').map((e) => e.type)).toEqual(events.map((e) => e.type));

        // The files are in the workspace (kept for the session).
        const dir = c.runDir(runId);
        expect(dir).toBeDefined();
        expect(readFileSync(join(dir as string, 'workspace', 'from-shell.txt'), 'utf8')).toBe('hi\n');
        expect(readFileSync(join(dir as string, 'workspace', 'notes.md'), 'utf8')).toBe('# Notes\n');

        // The config acted: the model, the base prompt and the key reached the model server; the MCP server the CLI's config.
        const requests = c.model.requests.filter((r) => r.api === cli.api.name);
        expect(requests.length).toBeGreaterThanOrEqual(3);
        expect(requests.every((r) => JSON.stringify([r.url, r.body]).includes(cli.model))).toBe(true);
        expect(requests.every((r) => JSON.stringify(r.body).includes(BASE))).toBe(true);
        expect(requests.map((r) => cli.keyOf(r))).toEqual(requests.map(() => API_KEY));
        expect(filesHolding(join(dir as string, 'home'), 'probe-7a1c').length).toBeGreaterThan(0);

        // A follow-up continues the same session: the model hears the earlier turns.
        const sent = await c.api('POST', `/agent/runs/${runId}/followups`, { message: FOLLOWUP });
        expect(sent.status).toBe(200);
        await until(
          async () => (await c.agentrun.services.runs.get(principal, runId)).status_message?.message === 'Follow-up answered',
          'the follow-up answered',
          90_000,
        );
        const last = c.model.requests.at(-1);
        const history = JSON.stringify(last?.body);
        expect(history).toContain('FOLLOWUP-8c2e');
        expect(history).toContain('Make the files');
        expect(history).toContain('from-shell.txt');
        expect(history).toContain('All done');

        // The key is nowhere the team or an operator reads: the transcript, the run, the audit log, the executor's errors.
        const everything = JSON.stringify([
          await c.events(runId),
          await c.agentrun.services.runs.get(principal, runId),
          await (await c.api('GET', '/audit')).text(),
          c.errors.map(String),
        ]);
        expect(everything).not.toContain(API_KEY);
        live.close();
      },
      180_000,
    );

    if (kind !== 'postgres') return;

    it('a cancel ends the CLI and every process it started', async () => {
      // Not a bare `sleep`: Claude Code refuses a standalone sleep as a tool call ("Blocked: standalone sleep").
      const c = await harnessCase(scope, await stores.fresh(), cli, [{ shell: 'tail -f /dev/null' }]);
      const runId = await c.start('Wait');
      await until(async () => (await c.events(runId)).some((e) => e.type === 'tool_call'), 'the tool call', 60_000);
      // The command itself, not only the CLI that would run it.
      const tails = () => processesWith(scope.root as string).filter((pid) => /(^|\/)tail\0-f\0\/dev\/null\0/.test(commandLine(pid)));
      await until(() => tails().length > 0, 'the blocking command', 30_000);
      const cancelled = await c.api('POST', `/agent/runs/${runId}/cancel`);
      expect(cancelled.status).toBe(200);
      const run = await c.ended(runId);
      expect(run.state).toBe('CANCELLED');
      await until(() => processesWith(scope.root as string).length === 0, 'every process gone', 15_000);
    }, 120_000);

    it('a model server that is down ends the run FAILED, saying so, well within its timeout', async () => {
      const port = await freePort();
      const c = await harnessCase(scope, await stores.fresh(), cli, SCRIPT, {
        endpoints: { [cli.type]: cli.endpoint(`http://127.0.0.1:${port}`) },
      });
      const started = Date.now();
      const run = await c.ended(await c.start('Hello'));
      expect(run.state).toBe('FAILED');
      expect(run.status_message).toMatchObject({
        message: expect.stringMatching(failedMessage(cli)),
        error_code: expect.stringMatching(/^agent_(failed|exit)$/),
      });
      expect(Date.now() - started).toBeLessThan(90_000);
    }, 120_000);

    it('a model server that answers garbage ends the run FAILED', async () => {
      const c = await harnessCase(scope, await stores.fresh(), cli, SCRIPT);
      c.model.fault = 'garbage';
      const run = await c.ended(await c.start('Hello'));
      expect(run.state).toBe('FAILED');
      expect(run.status_message).toMatchObject({
        message: expect.stringMatching(failedMessage(cli)),
        error_code: expect.stringMatching(/^agent_(failed|exit)$/),
      });
    }, 120_000);
  });
}
