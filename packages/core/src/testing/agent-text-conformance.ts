import { describe, expect, it } from 'vitest';
import { createAgentRun } from '../app/create-agent-run.js';
import type { ExecutionContext, ExecutionOutcome, Executor } from '../executor/executor.js';
import type { Store } from '../store/store.js';
import { testPrincipal } from './fixtures.js';

// Agent text a store cannot keep (docs/executors.md, "Text a store cannot keep"): NUL and unpaired
// surrogates, which JavaScript strings hold and PostgreSQL's text and jsonb refuse. Fed through a
// worker and an executor into every field an executor writes, they must end the run once, made
// well formed (U+FFFD) and marked, with the same stored result on every store.

/** Each kind of text an agent may print, in one string: NUL, a lone high and low surrogate, a valid pair, U+FFFF. */
const HOSTILE = 'nul[\u0000] high[\ud800] low[\udc00] pair[\ud83d\ude00] ffff[\uffff] end';
/** What a store keeps of it: the NUL and the halves replaced by U+FFFD, the pair and U+FFFF kept. */
const CLEAN = 'nul[\ufffd] high[\ufffd] low[\ufffd] pair[\ud83d\ude00] ffff[\uffff] end';
/** A line past the output's cut (16,384 characters) that the cut splits inside a surrogate pair. */
const LONG = `${'a'.repeat(16_383)}\ud83d\ude00${'b\u0000'.repeat(50_000)}`;
const LONG_KEPT = `${'a'.repeat(16_383)}\ufffd`;

// A session link must be http(s) (docs/run-api.md, "The run"): the hostile text is its path.
const LINK = 'https://sessions.example/';
const update = { message: HOSTILE, session_id: HOSTILE, session_link: `${LINK}${HOSTILE}` };
const cleanUpdate = { message: CLEAN, session_id: CLEAN, session_link: `${LINK}${CLEAN}` };
const artifact = { type: 'file', [HOSTILE]: HOSTILE, nested: { list: [HOSTILE, 1, true, null], [HOSTILE]: { deep: HOSTILE } } };
const cleanArtifact = { type: 'file', [CLEAN]: CLEAN, nested: { list: [CLEAN, 1, true, null], [CLEAN]: { deep: CLEAN } } };

/** Writes the hostile text through every part of the context, then ends with `outcome`. */
async function writeEverything(ctx: ExecutionContext): Promise<void> {
  await ctx.report(update);
  await ctx.record?.(
    [
      { type: 'output', data: { text: HOSTILE } },
      { type: 'output', data: { text: LONG } },
      { type: 'artifact', data: artifact },
      { type: 'status', data: update },
      { type: 'output', data: { text: 'plain' } },
    ],
    { status: update },
  );
  await ctx.block(HOSTILE);
  await ctx.resume();
}

/** The run-through-a-worker part of the store conformance suite (see `describeStoreConformance`). */
export function describeAgentTextConformance(current: () => Store): void {
  describe('agent text a store cannot keep', () => {
    const cases: { name: string; outcome: ExecutionOutcome; state: string; statusMessage: unknown }[] = [
      {
        name: 'failed',
        outcome: { status: 'failed', message: HOSTILE, error_code: HOSTILE, retryable: false },
        state: 'FAILED',
        statusMessage: { message: CLEAN, error_code: CLEAN, retryable: false },
      },
      { name: 'succeeded', outcome: { status: 'succeeded', message: HOSTILE }, state: 'SUCCEEDED', statusMessage: { message: CLEAN } },
    ];
    for (const { name, outcome, state, statusMessage } of cases)
      it(`ends a ${name} run once, its text well formed and marked`, async () => {
        const store = current();
        let calls = 0;
        const executor: Executor = {
          async execute(_input, ctx) {
            calls++;
            await writeEverything(ctx);
            return outcome;
          },
        };
        const agentrun = createAgentRun({ store, executor });
        const errors: unknown[] = [];
        const worker = agentrun.worker({ pollIntervalMs: 20, onError: (e) => errors.push(e) });
        const runId = (await agentrun.services.runs.create(testPrincipal(), { prompt: 'print the unprintable' })).body.run_id;
        worker.start();
        try {
          const deadline = Date.now() + 10_000;
          while (!['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'].includes((await store.runs.get(runId))?.state ?? '')) {
            if (Date.now() > deadline) throw new Error(`run still ${(await store.runs.get(runId))?.state}: ${errors.join('; ')}`);
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
          await worker.idle();
        } finally {
          await worker.stop();
        }
        const run = await store.runs.get(runId);
        expect(errors).toEqual([]);
        expect(calls).toBe(1);
        expect(run).toMatchObject({ state, attempts: 1, statusMessage, sessionId: CLEAN, sessionLink: `${LINK}${CLEAN}`, lease: null });

        const events = (await store.runEvents.list(runId, { limit: 100 })).map(({ type, data }) => ({ type, data }));
        const marked = (data: object) => ({ ...data, sanitized: true });
        expect(events).toEqual([
          { type: 'state', data: { from: 'QUEUED', to: 'CLAIMED', status_message: null } },
          {
            type: 'state',
            data: { from: 'CLAIMED', to: 'INPROGRESS', status_message: expect.stringMatching(/^Started on worker .+ \(host default\)$/) },
          },
          { type: 'status', data: marked(cleanUpdate) },
          { type: 'output', data: marked({ text: CLEAN }) },
          { type: 'output', data: marked({ text: LONG_KEPT }) },
          { type: 'artifact', data: marked(cleanArtifact) },
          { type: 'status', data: marked(cleanUpdate) },
          { type: 'output', data: { text: 'plain' } },
          { type: 'state', data: { from: 'INPROGRESS', to: 'BLOCKED', status_message: CLEAN } },
          { type: 'state', data: { from: 'BLOCKED', to: 'INPROGRESS', status_message: 'Resumed' } },
          { type: 'state', data: { from: 'INPROGRESS', to: state, status_message: CLEAN } },
        ]);
      });
  });
}
