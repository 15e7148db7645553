import type { ArtifactReportResult } from '../artifacts/report.js';
import type { ExecutionContext, ProgressUpdate, TranscriptEntry } from '../executor/executor.js';
import { mergeUsage, type RequestUsage } from '../models/request-usage.js';
import type { RunRecord } from '../run/record.js';
import { agentSessionLink } from '../run/session-link.js';
import { isTerminal } from '../run/state-machine.js';
import { appendTranscript, executorEvents } from '../run/transcript.js';
import type { NewRunEvent } from '../store/run-events.js';
import type { RunPatch } from '../store/runs.js';
import { isoTime } from '../util/clock.js';
import { agentText, wellFormedUpdate } from './agent-text.js';
import type { Execution, RunWorkContext } from './worker-context.js';

/**
 * The `ExecutionContext` an executor gets for one run (executor/executor.ts): its reports, blocks,
 * transcript lines, usage and artifacts, written one at a time in the order called, each a
 * compare-and-set on the run as this worker last wrote it (docs/executors.md, "The Executor interface").
 */
export function executionContext(ctx: RunWorkContext, runId: string, execution: Execution): ExecutionContext {
  const { service, store, clock, id, onError, artifacts } = ctx;
  const write = async (event: 'block' | 'resume' | null, patch: () => RunPatch, told: readonly NewRunEvent[] = []) => {
    if (event) {
      const result = await service.applyEvent(runId, { type: event }, { workerId: id, current: execution.run, patch });
      if (result.kind === 'applied') execution.run = result.run;
      return false;
    }
    // Progress: same state, new status. Applied as a transition to the state the run is in, as
    // last written here; if a write came first (a block, a cancel), once more on the run as it is.
    let run: RunRecord | undefined = execution.run;
    for (let attempt = 0; attempt < 2; attempt++) {
      if (!run || run.lease?.workerId !== id || isTerminal(run.state)) return false;
      const now = isoTime(clock.now());
      // The lines that go with this status are written by the same statement (`transcript`): a
      // cancel committed meanwhile leaves neither, never the status without its line nor a line
      // after the run's last state event.
      const { result } = await store.runs.transition({
        runId,
        expect: { state: run.state, workerId: id },
        patch: patch(),
        now,
        ...(told.length > 0 ? { transcript: { events: told } } : {}),
      });
      if (!result) return false;
      if (result.run) execution.run = result.run;
      if (result.applied) return true;
      run = result.run;
    }
    return false;
  };
  // One at a time, in the order called: a write of the transcript never overtakes an earlier
  // one (docs/executors.md, "The Executor interface"), even when the executor did not wait.
  const inOrder = <T>(write: () => Promise<T>): Promise<T> => {
    execution.queuedWrites++;
    const next = execution.writes.then(write).finally(() => execution.queuedWrites--);
    execution.writes = next.catch(() => {});
    return next;
  };
  // Usage reports (executor.ts `reportUsage`): the valid fields of those not yet written, merged,
  // and at most one write queued for them, however often the agent reports.
  let unwrittenUsage: RequestUsage | null = null;
  let usageWrite: Promise<void> | undefined;
  const reportUsage = (report: Readonly<Record<string, unknown>>): Promise<void> => {
    const valid = mergeUsage(null, report);
    if (valid === null) return usageWrite ?? Promise.resolve();
    unwrittenUsage = { ...unwrittenUsage, ...valid };
    usageWrite ??= inOrder(async () => {
      const usage = unwrittenUsage;
      unwrittenUsage = null;
      usageWrite = undefined;
      if (usage === null || execution.controller.signal.aborted) return;
      await write(null, () => ({ requestUsage: mergeUsage(execution.run.requestUsage, usage) }));
    });
    return usageWrite;
  };
  // An entry with a status goes in with it, in its write, only if it applies: the transcript keeps
  // every report, where status_message keeps only the last.
  const record = (entries: readonly TranscriptEntry[], given: ProgressUpdate | undefined, afterAbort: boolean) =>
    inOrder(async () => {
      // Agent text, made well formed before a store sees it (agent-text.ts), and a session link
      // kept only when it is one agentrun serves (session-link.ts); entries in executorEvents.
      const status = given === undefined ? undefined : agentSessionLink(wellFormedUpdate(given)).update;
      if (!afterAbort && execution.controller.signal.aborted) return;
      const at = isoTime(clock.now());
      const told = entries.flatMap((entry) => executorEvents(entry, at));
      if (status === undefined) {
        await appendTranscript(store, onError, runId, told);
        return;
      }
      await write(
        null,
        () => ({
          statusMessage: { message: status.message },
          ...(status.session_id !== undefined ? { sessionId: status.session_id } : {}),
          ...(status.session_link !== undefined ? { sessionLink: status.session_link } : {}),
        }),
        told,
      );
    });
  return {
    signal: execution.controller.signal,
    // A report after an abort still lands while the run is ours (write() checks); a record does not.
    report: (update) => record([{ type: 'status', data: update }], update, true),
    block: (message) => inOrder(async () => void (await write('block', () => ({ statusMessage: { message: agentText(message) } })))),
    resume: () => inOrder(async () => void (await write('resume', () => ({ statusMessage: { message: 'Resumed' } })))),
    onFollowup: (listener) => execution.inbox.listen(listener),
    record: (entries, options) => record(entries, options?.status, false),
    reportUsage,
    // In order with the transcript's other writes: an artifact event follows the lines before it.
    reportArtifact: (artifact) =>
      inOrder(async (): Promise<ArtifactReportResult> => {
        if (execution.controller.signal.aborted) return { accepted: false, reason: 'the execution was stopped' };
        if (!artifacts) return { accepted: false, reason: 'this worker keeps no artifacts' };
        return await artifacts.report({ id: runId, teamUid: execution.run.teamUid }, artifact);
      }),
  };
}
