import type { ArtifactService } from '../artifacts/artifact-service.js';
import type { ArtifactReportResult } from '../artifacts/report.js';
import { type AgentRunEvents, emitSafely } from '../events.js';
import type { ExecutionContext, ExecutionOutcome, Executor, ProgressUpdate, TranscriptEntry } from '../executor/executor.js';
import type { Maintenance } from '../maintenance/maintenance.js';
import { mergeUsage, type RequestUsage } from '../models/request-usage.js';
import type { Notification } from '../notify/notification.js';
import { hasAttemptsLeft } from '../run/attempts.js';
import type { RunRecord } from '../run/record.js';
import { toRunItem } from '../run/record.js';
import type { RunService } from '../run/run-service.js';
import { isTerminal } from '../run/state-machine.js';
import { appendTranscript, executorEvent, stateEvent } from '../run/transcript.js';
import type { RunPatch } from '../store/runs.js';
import type { Store } from '../store/store.js';
import type { WorkerTelemetry } from '../telemetry/execution-span.js';
import { type Clock, isoTime } from '../util/clock.js';
import { newId } from '../util/ids.js';
import { everyMs } from '../util/throttle.js';
import { agentText, wellFormedOutcome, wellFormedUpdate } from './agent-text.js';
import { type FollowupInbox, followupInbox } from './followup-inbox.js';
import { type EnvironmentResolver, redactedOutcome, redactingContext, runEnvironment } from './run-environment.js';
import { checkWorkerOptions } from './worker-options.js';

/**
 * What a worker works with, handed over by the composition root (`agentrun.worker()`,
 * app/create-agent-run.ts) rather than reached for through a handler.
 */
export interface WorkerDeps {
  /** Every state change goes through the run service's state machine. */
  runs: RunService;
  store: Store;
  events: AgentRunEvents;
  clock: Clock;
  /** Housekeeping run on the worker's timer; none without it. */
  maintenance?: Maintenance;
  /**
   * The `session_link` a run gets when it starts without one: its dashboard page, from
   * `createAgentRun`'s `publicBaseUrl` (run/session-link.ts). None without it.
   */
  sessionLink?: (runId: string) => string;
  /** Pickup latency and a span per execution (telemetry/execution-span.ts); from `agentrun.worker()`. */
  telemetry?: WorkerTelemetry;
  /** Opens a run's environment for the executor (worker/run-environment.ts); from `agentrun.worker()`. */
  resolveEnvironment?: EnvironmentResolver;
  /** Keeps what agents report as artifacts (docs/artifacts.md); without it `reportArtifact` refuses every report. */
  artifacts?: ArtifactService;
}

export interface WorkerOptions extends WorkerDeps {
  executor: Executor;
  /** Names this worker in leases. Default: a random UUID. */
  workerId?: string;
  /** Runs executed at once. Default 4. */
  concurrency?: number;
  /** How often to look for queued runs and expired leases when no event says so. Default 1000 ms. */
  pollIntervalMs?: number;
  /** How long a claim lasts without a heartbeat. Default 30 s. */
  leaseMs?: number;
  /** How often a running execution renews its lease. Default a third of `leaseMs`. */
  heartbeatMs?: number;
  /** Errors of the worker itself (a store that failed, an executor that threw). */
  onError?: (error: unknown) => void;
}

export interface WorkerStopOptions {
  /** How long running executions may take to finish before they are aborted and handed back. Default 0. */
  graceMs?: number;
}

export interface Worker {
  readonly id: string;
  /** Begin claiming runs. */
  start(): void;
  /**
   * Stop claiming; let running executions finish for up to `graceMs` (default 0), still hearing
   * their cancels and follow-ups; then abort those left and hand their runs back to the queue
   * (docs/executors.md, "Stopping a worker").
   */
  stop(options?: WorkerStopOptions): Promise<void>;
  /** Claim queued runs up to capacity now; resolves to how many were claimed. */
  poll(): Promise<number>;
  /** Resolves when no execution is running, and (on a store with notifications) once the worker listens. */
  idle(): Promise<void>;
  /** Re-queue (or end in `ERROR`) runs whose lease expired; resolves to how many. */
  recoverExpiredLeases(): Promise<number>;
}

/**
 * An in-process worker: claims queued runs from the store, moves each to `INPROGRESS`, and drives
 * it through the executor. It renews its lease while a run executes; a run whose lease lapses
 * (its worker died) is re-queued by any worker's recovery sweep. New runs, cancels and follow-ups
 * reach it at once through the store's notifications, from any process sharing the store (through
 * this process's events when the store has none), and otherwise at the next poll or heartbeat.
 */
export function createWorker(options: WorkerOptions): Worker {
  checkWorkerOptions(options);
  const { runs: service, store, events, clock, executor, maintenance, sessionLink, telemetry, artifacts } = options;
  const id = options.workerId ?? newId();
  const concurrency = options.concurrency ?? 4;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const leaseMs = options.leaseMs ?? 30_000;
  const heartbeatMs = options.heartbeatMs ?? Math.max(10, Math.floor(leaseMs / 3));
  const report = options.onError ?? ((error: unknown) => console.error('[agentrun] worker error', error));
  // While the store is unreachable every poll and heartbeat fails alike: report that once every
  // 10 s, not once per poll; the worker keeps polling and resumes by itself (docs/production.md).
  const outageReported = everyMs(10_000);
  const onError = (error: unknown) => {
    if (store.isUnavailable?.(error) && !outageReported.due(Date.now())) return;
    report(error);
  };

  interface Execution {
    /**
     * The run as this worker last wrote it (claimed, started, its own reports): its writes are
     * compare-and-sets on this state, so none needs a read first; when another write came first
     * they read the run then (run/apply-event.ts, `current`).
     */
    run: RunRecord;
    controller: AbortController;
    /** Its follow-ups, each delivered once, in order, and only to a listener (followup-inbox.ts). */
    inbox: FollowupInbox;
    /** The last of its context's writes, made one at a time in order (`executionContext`), and how many are not done. */
    writes: Promise<unknown>;
    queuedWrites: number;
    done: Promise<void>;
  }
  const running = new Map<string, Execution>();
  let started = false;
  /** Set from the first moment of `stop()`: nothing more is claimed, even on a notification. */
  let stopping = false;
  // Backoff: a timed poll or lease sweep that fails (the store is down, most likely) puts off the
  // next timed one, twice as long each time up to MAX_BACKOFF_MS; a poll that works resets it. An
  // outage then costs a few queries a minute, not one per interval, and the worker resumes within
  // MAX_BACKOFF_MS of the store's return (docs/production.md, "When the database goes away").
  const backoff = pollBackoff(pollIntervalMs);
  let timer: ReturnType<typeof setInterval> | undefined;
  let polling: Promise<number> | undefined;
  let pollAgain = false;

  const leaseUntil = () => isoTime(clock.now() + leaseMs);

  // Signals: new work, cancels and follow-ups arrive without waiting for a poll or a heartbeat.
  // From the store's notifications when it has them (writes of any process sharing the store),
  // else from this process's events. Either only makes things sooner: polls and heartbeats stay,
  // so a lost signal delays work but never loses it (docs/executors.md, docs/stores.md).
  const onQueued = () => void schedulePoll();
  const onStateChange = (runId: string, to: RunRecord['state']) => {
    if (to === 'QUEUED') void schedulePoll();
    const execution = running.get(runId);
    if (execution && isTerminal(to)) execution.controller.abort(new Error(`run is ${to}`));
  };
  const onFollowupAdded = (runId: string) => {
    const execution = running.get(runId);
    if (execution) void store.runs.listFollowups(runId).then((all) => execution.inbox.offer(all), onError);
  };
  const onCreated = onQueued;
  const onStateChanged = (e: { run: { run_id: string }; to: RunRecord['state'] }) => onStateChange(e.run.run_id, e.to);
  const onFollowup = (e: { run: { run_id: string } }) => onFollowupAdded(e.run.run_id);
  // Notifications may have been missed (the store's listener reconnected): look now rather than
  // at the next poll and heartbeat, for new runs and for cancels and follow-ups of our own.
  const onResync = () => {
    onQueued();
    for (const runId of running.keys())
      void store.runs.get(runId).then((run) => {
        if (run) onStateChange(runId, run.state);
        onFollowupAdded(runId);
      }, onError);
  };
  const onNotification = (n: Notification) => {
    if (n.type === 'run.queued') onQueued();
    else if (n.type === 'resync') onResync();
    else if (n.type === 'run.changed') onStateChange(n.runId, n.state);
    else if (n.type === 'run.followup') onFollowupAdded(n.runId);
  };
  /** Set while listening to the store's notifications: resolves to the function that stops it. */
  let unlisten: Promise<(() => Promise<void>) | undefined> | undefined;
  const subscribe = () => {
    if (store.notifications) {
      unlisten = store.notifications.listen(onNotification).catch((error) => {
        // Polls and heartbeats still find everything, only later.
        onError(error);
        return undefined;
      });
      return;
    }
    events.on('run.created', onCreated);
    events.on('run.state_changed', onStateChanged);
    events.on('run.followup', onFollowup);
  };
  const unsubscribe = async () => {
    const listening = unlisten;
    unlisten = undefined;
    if (listening) {
      const stop = await listening;
      await stop?.().catch(onError);
      return;
    }
    events.off('run.created', onCreated);
    events.off('run.state_changed', onStateChanged);
    events.off('run.followup', onFollowup);
  };

  async function execute(claimed: RunRecord): Promise<void> {
    const execution = running.get(claimed.id) as Execution;
    const { controller } = execution;
    const heartbeat = setInterval(async () => {
      try {
        const run = await store.runs.renewLease({
          runId: claimed.id,
          workerId: id,
          now: isoTime(clock.now()),
          leaseExpiresAt: leaseUntil(),
        });
        if (!run || run.lease?.workerId !== id || isTerminal(run.state)) {
          controller.abort(new Error(run && isTerminal(run.state) ? `run is ${run.state}` : 'lease lost'));
          return;
        }
        // Follow-ups sent through another process reach this execution here.
        if (execution.inbox.listening) execution.inbox.offer(await store.runs.listFollowups(claimed.id));
      } catch (error) {
        onError(error);
      }
    }, heartbeatMs);

    try {
      const start = await service.applyEvent(
        claimed.id,
        { type: 'start' },
        {
          workerId: id,
          current: claimed,
          patch: (r) => ({
            statusMessage: { message: 'Started' },
            // The run's own session (an agent's report) wins; until then, the session is the run
            // itself and its link the run's page in the dashboard, when agentrun knows where that is.
            ...(r.sessionId === null ? { sessionId: r.id } : {}),
            ...(r.sessionLink === null && sessionLink ? { sessionLink: sessionLink(r.id) } : {}),
          }),
        },
      );
      if (start.kind !== 'applied') return;
      execution.run = start.run;

      const followups = await store.runs.listFollowups(claimed.id);
      execution.inbox.begin(followups);
      const ctx = executionContext(claimed.id, execution);
      let outcome: ExecutionOutcome;
      try {
        const { teamUid } = start.run;
        const readAttachment = async (fileName: string) => (await store.runs.getAttachment(teamUid, claimed.id, fileName))?.data;
        const prepared = await runEnvironment(options.resolveEnvironment, start.run);
        if ('outcome' in prepared) outcome = prepared.outcome;
        else {
          const input = {
            run: toRunItem(start.run),
            followups,
            attempt: start.run.attempts,
            readAttachment,
            ...(prepared.environment ? { environment: prepared.environment } : {}),
          };
          // The environment's secret values never reach the transcript or a status (run-environment.ts).
          const scrubbed = redactingContext(ctx, prepared.environment);
          outcome = redactedOutcome(
            await (telemetry ? telemetry.execution(start.run, () => executor.execute(input, scrubbed)) : executor.execute(input, scrubbed)),
            prepared.environment,
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
      outcome = wellFormedOutcome(outcome);
      const statusMessage =
        outcome.status === 'succeeded'
          ? { message: outcome.message ?? 'Succeeded' }
          : {
              message: outcome.message,
              ...(outcome.error_code !== undefined ? { error_code: outcome.error_code } : {}),
              ...(outcome.retryable !== undefined ? { retryable: outcome.retryable } : {}),
            };
      const finish = { type: outcome.status === 'succeeded' ? 'succeed' : 'fail' } as const;
      const finished = await service
        .applyEvent(claimed.id, finish, { workerId: id, current: execution.run, patch: () => ({ lease: null, statusMessage }) })
        .catch(async (error: unknown) => {
          // The store is out of reach: the lease lapses and the run is tried again, as for a worker
          // that died. Any other failure is the store refusing what the agent left (a value it
          // cannot keep, well formed as it is): that would fail the same way on every attempt, so
          // the run ends now with a message of our own (docs/executors.md, "Text a store cannot keep").
          if (store.isUnavailable?.(error)) throw error;
          onError(error);
          return service.applyEvent(
            claimed.id,
            { type: 'fail' },
            { workerId: id, patch: () => ({ lease: null, statusMessage: STORE_REJECTED_OUTPUT }) },
          );
        });
      if (finished.kind === 'applied') await requeueForUndelivered(finished.run, execution.inbox);
    } catch (error) {
      onError(error);
    } finally {
      clearInterval(heartbeat);
      running.delete(claimed.id);
      if (started) void schedulePoll();
    }
  }

  /**
   * A follow-up the run accepted while active but its execution never received (it came as the
   * execution ended, or the executor did not listen) is not dropped: the run, just finished, is
   * queued again as a follow-up to a finished run would queue it, and the next execution has it
   * in its input (docs/executors.md, "Follow-ups"). Read after the outcome's write, which a
   * follow-up's own write cannot overtake (both are compare-and-sets on the run): one accepted
   * before it is in this read; one after it found the run finished and queued it itself.
   */
  async function requeueForUndelivered(run: RunRecord, inbox: FollowupInbox): Promise<void> {
    if (inbox.undelivered(await store.runs.listFollowups(run.id)).length === 0) return;
    await service.applyEvent(
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

  function executionContext(runId: string, execution: Execution): ExecutionContext {
    const write = async (event: 'block' | 'resume' | null, patch: () => RunPatch) => {
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
        const { result } = await store.runs.transition({ runId, expect: { state: run.state, workerId: id }, patch: patch(), now });
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
    // An entry goes in only once its status (if any) was applied: the transcript keeps every
    // report, where status_message keeps only the last.
    const record = (entries: readonly TranscriptEntry[], given: ProgressUpdate | undefined, afterAbort: boolean) =>
      inOrder(async () => {
        // Agent text, made well formed before a store sees it (agent-text.ts); entries in executorEvent.
        const status = given === undefined ? undefined : wellFormedUpdate(given);
        if (!afterAbort && execution.controller.signal.aborted) return;
        const applied =
          status === undefined ||
          (await write(null, () => ({
            statusMessage: { message: status.message },
            ...(status.session_id !== undefined ? { sessionId: status.session_id } : {}),
            ...(status.session_link !== undefined ? { sessionLink: status.session_link } : {}),
          })));
        const at = isoTime(clock.now());
        if (applied)
          await appendTranscript(
            store,
            onError,
            runId,
            entries.map((entry) => executorEvent(entry, at)),
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

  async function claimUpToCapacity(): Promise<number> {
    let claimed = 0;
    while (!stopping && running.size < concurrency) {
      const run = await store.runs.claimNext({ workerId: id, now: isoTime(clock.now()), leaseExpiresAt: leaseUntil() });
      if (!run) break;
      claimed++;
      telemetry?.claimed(run);
      emitSafely(events, onError, 'run.state_changed', { run: toRunItem(run), team_uid: run.teamUid, from: 'QUEUED', to: 'CLAIMED' });
      await appendTranscript(store, onError, run.id, [stateEvent('QUEUED', run, run.updatedAt)]);
      const execution: Execution = {
        run,
        controller: new AbortController(),
        inbox: followupInbox(onError),
        writes: Promise.resolve(),
        queuedWrites: 0,
        done: Promise.resolve(),
      };
      running.set(run.id, execution);
      execution.done = execute(run);
    }
    return claimed;
  }

  /** One poll at a time; a request during a poll runs one more right after it. */
  function schedulePoll(): Promise<number> {
    if (polling) {
      pollAgain = true;
      return polling;
    }
    polling = claimUpToCapacity()
      .then(
        (claimed) => {
          backoff.succeeded();
          return claimed;
        },
        (error) => {
          backoff.failed(Date.now());
          onError(error);
          return 0;
        },
      )
      .finally(() => {
        polling = undefined;
        if (pollAgain && started) {
          pollAgain = false;
          void schedulePoll();
        }
      });
    return polling;
  }

  async function recoverExpiredLeases(): Promise<number> {
    const now = isoTime(clock.now());
    let recovered = 0;
    for (const run of await store.runs.listExpiredLeases(now, 100)) {
      const result = await service.applyEvent(
        run.id,
        { type: 'lease_expired' },
        {
          leaseExpiredBy: now,
          patch: (r) => ({
            lease: null,
            statusMessage: hasAttemptsLeft(r.attempts, service.maxAttempts)
              ? { message: 'The worker stopped responding; the run was re-queued', retryable: true }
              : { message: 'The worker stopped responding too many times', error_code: 'lease_expired', retryable: false },
          }),
        },
      );
      if (result.kind === 'applied') recovered++;
    }
    return recovered;
  }

  return {
    id,
    start() {
      if (started) return;
      started = true;
      subscribe();
      const tick = () => {
        if (!backoff.due(Date.now())) return;
        void recoverExpiredLeases().catch((error) => {
          backoff.failed(Date.now());
          onError(error);
        });
        void schedulePoll();
        // Housekeeping rides on the same timer (maintenance/maintenance.ts): each task when due.
        void maintenance?.runDue();
      };
      timer = setInterval(tick, pollIntervalMs);
      tick();
    },
    async stop(options: WorkerStopOptions = {}) {
      started = false;
      stopping = true;
      if (timer) clearInterval(timer);
      await polling;
      // Drain: executions may finish on their own within the grace period; notifications stay on
      // meanwhile, so a cancel or a follow-up still reaches them at once.
      const graceMs = options.graceMs ?? 0;
      if (graceMs > 0 && running.size > 0) {
        let timeout: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          Promise.all([...running.values()].map((e) => e.done)),
          new Promise<void>((resolve) => {
            timeout = setTimeout(resolve, graceMs);
          }),
        ]);
        clearTimeout(timeout);
      }
      await unsubscribe();
      const executions = [...running.entries()];
      for (const [, execution] of executions) execution.controller.abort(new Error('worker stopping'));
      await Promise.all(executions.map(([, e]) => e.done));
      // Hand the runs back now rather than after the lease lapses.
      for (const [runId] of executions) {
        await service
          .applyEvent(
            runId,
            { type: 'lease_expired' },
            {
              workerId: id,
              patch: () => ({ lease: null, statusMessage: { message: 'The worker stopped; the run was re-queued', retryable: true } }),
            },
          )
          .catch(onError);
      }
      stopping = false;
    },
    poll: () => schedulePoll(),
    async idle() {
      // Listening too: a run another process queues from now on wakes this worker (its NOTIFY
      // is not missed while the LISTEN is still being set up).
      await unlisten;
      while (running.size > 0 || polling) {
        await polling;
        await Promise.all([...running.values()].map((e) => e.done));
      }
    },
    recoverExpiredLeases,
  };
}

/**
 * The outcome of a run whose own outcome the store refused for a reason other than an outage
 * (docs/executors.md, "Text a store cannot keep").
 */
const STORE_REJECTED_OUTPUT = {
  message: "The store refused the agent's outcome; it was not kept",
  error_code: 'store_rejected_output',
  retryable: false,
};

/** The longest a failing worker waits between timed polls (unless `pollIntervalMs` is longer). */
export const MAX_BACKOFF_MS = 10_000;

/**
 * When the next timed poll is due after failures: `pollIntervalMs` × 2, 4, 8… after 1, 2, 3…
 * failures in a row, at most `MAX_BACKOFF_MS` (or `pollIntervalMs`, if longer).
 */
function pollBackoff(pollIntervalMs: number) {
  let failures = 0;
  let dueAt = 0;
  const cap = Math.max(pollIntervalMs, MAX_BACKOFF_MS);
  return {
    due: (now: number) => now >= dueAt,
    failed(now: number) {
      // The poll and the lease sweep of one tick count once; so does a failure while waiting.
      if (now < dueAt) return;
      failures = Math.min(failures + 1, 30);
      dueAt = now + Math.min(cap, pollIntervalMs * 2 ** failures);
    },
    succeeded() {
      failures = 0;
      dueAt = 0;
    },
  };
}
