import type { ExecutionOutcome } from '../executor/executor.js';
import { authSecretNames } from '../harness/harness-auth.js';
import type { FollowupRecord, RunRecord } from '../run/record.js';
import { toRunItem } from '../run/record.js';
import { startedStatus } from '../run/started-status.js';
import { wellFormedOutcome } from './agent-text.js';
import { executionContext } from './execution-context.js';
import type { FollowupInbox } from './followup-inbox.js';
import { startHeartbeat } from './lease-heartbeat.js';
import { executionSecrets, redactedOutcome, redactingContext, runEnvironment, runHarnessAuth } from './run-environment.js';
import type { Execution, RunWorkContext } from './worker-context.js';

/** What a run without an environment executes with: no resolver is asked (worker.ts `resolveEnvironment`). */
const NO_ENVIRONMENT = { environment: undefined };
/** What a run whose config names no auth secret executes with. */
const NO_HARNESS_AUTH = { harnessAuth: undefined };

/**
 * The outcome of a run whose own outcome the store refused for a reason other than an outage
 * (docs/executors.md, "Text a store cannot keep").
 */
const STORE_REJECTED_OUTPUT = {
  message: "The store refused the agent's outcome; it was not kept",
  error_code: 'store_rejected_output',
  retryable: false,
};

/**
 * One execution of a claimed run, from its start to its outcome's write (docs/executors.md): the
 * lease renewed meanwhile, its environment opened, the executor driven with its context, and a
 * follow-up it never received queued again. Never throws: failures are the worker's `onError`.
 */
export async function executeRun(
  ctx: RunWorkContext,
  claimed: RunRecord,
  execution: Execution,
  /** Read with the claim, when it was (runs-part.ts); else read here. */
  claimedFollowups?: FollowupRecord[],
): Promise<void> {
  const { service, store, id, onError, executor, telemetry, sessionLink } = ctx;
  const { controller } = execution;
  const stopHeartbeat = startHeartbeat(ctx, claimed.id, execution);
  try {
    // Started by its claim already (runs-part.ts), or started now.
    const start =
      claimed.state === 'INPROGRESS'
        ? { kind: 'applied' as const, run: claimed }
        : await service.applyEvent(
            claimed.id,
            { type: 'start' },
            {
              workerId: id,
              current: claimed,
              patch: (r) => ({
                statusMessage: startedStatus({ workerId: id, host: ctx.host }),
                // The run's own session (an agent's report) wins; until then, the session is the run
                // itself and its link the run's page in the dashboard, when agentrun knows where that is.
                ...(r.sessionId === null ? { sessionId: r.id } : {}),
                ...(r.sessionLink === null && sessionLink ? { sessionLink: sessionLink(r.id) } : {}),
              }),
            },
          );
    if (start.kind !== 'applied') return;
    execution.run = start.run;

    // Read with the claim, unless the run was started as a write of its own (a follow-up may have
    // come between): then read now.
    const followups =
      claimedFollowups !== undefined && claimed.state === 'INPROGRESS' ? claimedFollowups : await store.runs.listFollowups(claimed.id);
    execution.inbox.begin(followups);
    const context = executionContext(ctx, claimed.id, execution);
    let outcome: ExecutionOutcome;
    try {
      const { teamUid } = start.run;
      const readAttachment = async (fileName: string) => (await store.runs.getAttachment(teamUid, claimed.id, fileName))?.data;
      // A run without an environment reaches its executor without a turn of the event loop: the
      // worker's next claim is sent only after this one's executor has started (runs-part.ts).
      const prepared =
        start.run.config.environment_id === undefined ? NO_ENVIRONMENT : await runEnvironment(ctx.resolveEnvironment, start.run);
      const auth =
        'outcome' in prepared || authSecretNames(start.run.config).length === 0
          ? NO_HARNESS_AUTH
          : await runHarnessAuth(ctx.resolveHarnessAuth, start.run);
      if ('outcome' in prepared) outcome = prepared.outcome;
      else if ('outcome' in auth) outcome = auth.outcome;
      else {
        const input = {
          run: toRunItem(start.run),
          followups,
          attempt: start.run.attempts,
          readAttachment,
          ...(prepared.environment ? { environment: prepared.environment } : {}),
          ...(auth.harnessAuth ? { harnessAuth: auth.harnessAuth } : {}),
        };
        // The execution's secret values never reach the transcript or a status (run-environment.ts).
        const secrets = executionSecrets(prepared.environment, auth.harnessAuth);
        const scrubbed = redactingContext(context, secrets);
        outcome = redactedOutcome(
          await (telemetry ? telemetry.execution(start.run, () => executor.execute(input, scrubbed)) : executor.execute(input, scrubbed)),
          secrets,
        );
      }
    } catch (error) {
      execution.inbox.close();
      // Aborted because of a cancel, a lost lease or a stop: the run's state already says why.
      if (controller.signal.aborted) return;
      onError(error);
      await service.applyEvent(
        claimed.id,
        { type: 'error' },
        {
          workerId: id,
          current: execution.run,
          patch: () => ({
            lease: null,
            statusMessage: { message: 'The executor failed', error_code: 'executor_error', retryable: true },
          }),
        },
      );
      return;
    }
    execution.inbox.close();
    // What the execution still had queued (a usage report it did not wait for) lands before the
    // outcome; with nothing queued, no turn is spent waiting.
    if (execution.queuedWrites > 0) await execution.writes;
    if (controller.signal.aborted) return;
    await finish(ctx, claimed.id, execution, wellFormedOutcome(outcome));
  } catch (error) {
    onError(error);
  } finally {
    stopHeartbeat();
  }
}

/** The outcome's write, and a follow-up the execution never received queued again. */
async function finish(ctx: RunWorkContext, runId: string, execution: Execution, outcome: ExecutionOutcome): Promise<void> {
  const { service, store, id, onError } = ctx;
  const statusMessage =
    outcome.status === 'succeeded'
      ? { message: outcome.message ?? 'Succeeded' }
      : {
          message: outcome.message,
          ...(outcome.error_code !== undefined ? { error_code: outcome.error_code } : {}),
          ...(outcome.retryable !== undefined ? { retryable: outcome.retryable } : {}),
        };
  const event = { type: outcome.status === 'succeeded' ? 'succeed' : 'fail' } as const;
  const finished = await service
    // The outcome's write answers the follow-ups too when it can (`TransitionRunInput.followups`):
    // no read of its own for the ones that came too late.
    .applyEvent(runId, event, { workerId: id, current: execution.run, followups: true, patch: () => ({ lease: null, statusMessage }) })
    .catch(async (error: unknown) => {
      // The store is out of reach: the lease lapses and the run is tried again, as for a worker
      // that died. Any other failure is the store refusing what the agent left (a value it
      // cannot keep, well formed as it is): that would fail the same way on every attempt, so
      // the run ends now with a message of our own (docs/executors.md, "Text a store cannot keep").
      if (store.isUnavailable?.(error)) throw error;
      onError(error);
      return service.applyEvent(
        runId,
        { type: 'fail' },
        { workerId: id, patch: () => ({ lease: null, statusMessage: STORE_REJECTED_OUTPUT }) },
      );
    });
  execution.outcomeWritten?.();
  if (finished.kind === 'applied') await requeueForUndelivered(ctx, finished.run, execution.inbox, finished.followups);
}

/**
 * A follow-up the run accepted while active but its execution never received (it came as the
 * execution ended, or the executor did not listen) is not dropped: the run, just finished, is
 * queued again as a follow-up to a finished run would queue it, and the next execution has it
 * in its input (docs/executors.md, "Follow-ups"). Read after the outcome's write, which a
 * follow-up's own write cannot overtake (both are compare-and-sets on the run): one accepted
 * before it is in this read; one after it found the run finished and queued it itself. The
 * outcome's write answers that read itself when the store can tell it complete (PostgreSQL: no
 * write of the run committed between its snapshot and its lock, runs-sql.ts).
 */
async function requeueForUndelivered(
  ctx: RunWorkContext,
  run: RunRecord,
  inbox: FollowupInbox,
  /** Answered by the outcome's write, when it could tell its read complete; else read now. */
  answered: readonly FollowupRecord[] | undefined,
): Promise<void> {
  if (inbox.undelivered(answered ?? (await ctx.store.runs.listFollowups(run.id))).length === 0) return;
  await ctx.service.applyEvent(
    run.id,
    { type: 'followup' },
    {
      current: run,
      // As RunService.followup: only a finished run is re-queued (a fresh execution); one a
      // follow-up re-queued meanwhile is left as it is.
      patch: (r) =>
        r.state === 'SUCCEEDED' || r.state === 'FAILED'
          ? { lease: null, attempts: 0, statusMessage: { message: 'Re-queued for a follow-up its execution did not receive' } }
          : {},
    },
  );
}
