import type { Principal } from '../auth/principal.js';
import { missingCipher } from '../control/secret-cipher.js';
import { type AgentRunError, conflict, invalidRequest, notFound } from '../errors.js';
import { type AgentRunEvents, emitSafely } from '../events.js';
import type { AvailableHarnesses } from '../harness/harness-check.js';
import { RunAgentRequestSchema, RunFollowupRequestSchema } from '../models/requests.js';
import type { ListRunsResponse, RunAgentResponse, RunFollowupResponse, RunItem, SessionRedirectResponse } from '../models/run.js';
import { parseOrThrow } from '../models/validate.js';
import { SkillCatalog } from '../skills/skill-catalog.js';
import type { Store } from '../store/store.js';
import { type Clock, isoTime, systemClock } from '../util/clock.js';
import { newId, newOrderedId } from '../util/ids.js';
import { liveSince, runWorkerHost, waitingStatus } from '../worker/worker-hosts.js';
import { type ApplyEventOptions, type ApplyEventResult, applyRunEvent } from './apply-event.js';
import {
  DEFAULT_IDEMPOTENCY_TTL_MS,
  type IdempotencyContext,
  idempotencyWrite,
  lookupReplay,
  replay,
  type WriteResult,
} from './idempotency.js';
import { listRuns } from './list-runs.js';
import { type AttachmentRecord, type FollowupRecord, type RunRecord, toRunItem } from './record.js';
import { type RunRequestContext, runFromRequest } from './run-request.js';
import { isTerminal, type RefusalReason, type RunEvent } from './state-machine.js';

export type { ApplyEventOptions, ApplyEventResult } from './apply-event.js';

export interface RunServiceOptions {
  store: Store;
  events: AgentRunEvents;
  clock?: Clock;
  /** How long an `Idempotency-Key` is remembered. Default 24 h. */
  idempotencyTtlMs?: number;
  /** Claims allowed before an expired lease ends the run in `ERROR`. Default 3. */
  maxAttempts?: number;
  /** Receives errors thrown by event listeners (the change they heard of stays stored). */
  onError?: (error: unknown) => void;
  /** Where skill specs resolve (skills/skill-catalog.ts); default: none, so every skill is a 400. */
  skills?: SkillCatalog;
  /** The harnesses this server runs (its executor's `harnesses()`): a run naming another is a 400 (docs/harnesses.md). */
  harnesses?: AvailableHarnesses;
}

/** Extra facts about a run that come from the caller's context rather than the request body. */
export interface CreateRunContext extends RunRequestContext {
  idempotency?: IdempotencyContext;
}

/**
 * The run API's use cases. Validates input, applies the state machine, keeps every read and write
 * inside the caller's team, and emits events after each stored change. The parts live beside it:
 * run/run-request.ts builds a new run, run/list-runs.ts pages the list, run/apply-event.ts is the
 * one transition path, run/idempotency.ts answers repeated `Idempotency-Key`s.
 */
export class RunService {
  readonly store: Store;
  readonly events: AgentRunEvents;
  readonly clock: Clock;
  readonly maxAttempts: number;
  readonly onError: (error: unknown) => void;
  readonly skills: SkillCatalog;
  readonly harnesses: AvailableHarnesses | undefined;
  private readonly idempotencyTtlMs: number;

  constructor(options: RunServiceOptions) {
    this.store = options.store;
    this.events = options.events;
    this.clock = options.clock ?? systemClock;
    this.idempotencyTtlMs = options.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS;
    this.maxAttempts = options.maxAttempts ?? 3;
    this.onError = options.onError ?? ((error) => console.error('[agentrun] event listener failed', error));
    this.skills = options.skills ?? new SkillCatalog(options.store, missingCipher, undefined);
    this.harnesses = options.harnesses;
  }

  // ─────────────────────────────────────────────── create

  async create(principal: Principal, input: unknown, ctx: CreateRunContext = {}): Promise<WriteResult<RunAgentResponse>> {
    const request = parseOrThrow(RunAgentRequestSchema, input, 'run request');
    const early = await this.lookupReplay<RunAgentResponse>(principal, ctx.idempotency);
    if (early) return early;

    const now = this.clock.now();
    const { run, attachments } = await runFromRequest(
      this.store,
      principal,
      request,
      ctx,
      newOrderedId(now),
      isoTime(now),
      this.skills,
      this.harnesses,
    );
    // A run routed to a host no live worker serves says so from the start (docs/operations.md, "Worker hosts").
    const host = runWorkerHost(run.config);
    if (host !== undefined) run.statusMessage = waitingStatus(host, await this.store.workers.list({ seenSince: isoTime(liveSince(now)) }));
    const respond = (r: RunRecord) => ({ status: 200, body: { run_id: r.id, task_id: r.id, state: r.state } });
    const outcome = await this.store.runs.create({
      run,
      attachments,
      idempotency: idempotencyWrite(principal, ctx.idempotency, now, this.idempotencyTtlMs, respond),
    });
    if (outcome.replayed) return replay(outcome.replayed, ctx.idempotency?.fingerprint ?? '');
    emitSafely(this.events, this.onError, 'run.created', { run: toRunItem(outcome.result), team_uid: principal.team_uid });
    return { ...respond(outcome.result), replayed: false } as WriteResult<RunAgentResponse>;
  }

  // ─────────────────────────────────────────────── read

  async get(principal: Principal, runId: string): Promise<RunItem> {
    return toRunItem(await this.requireRun(principal, runId));
  }

  async list(principal: Principal, input: Record<string, unknown>): Promise<ListRunsResponse> {
    return listRuns(this, principal.team_uid, input);
  }

  async getAttachment(principal: Principal, runId: string, fileName: string): Promise<AttachmentRecord> {
    await this.requireRun(principal, runId);
    const attachment = await this.store.runs.getAttachment(principal.team_uid, runId, fileName);
    if (!attachment) throw notFound(`run ${runId} has no attachment ${JSON.stringify(fileName)}`);
    return attachment;
  }

  /**
   * `GET /agent/sessions/{sessionUuid}/redirect` (docs/run-api.md, "Session redirect"): the newest
   * of the team's runs with this session; its conversation once it has ended, nothing while it runs.
   */
  async sessionRedirect(principal: Principal, sessionId: string): Promise<SessionRedirectResponse> {
    const [run] = await this.store.runs.list({
      teamUid: principal.team_uid,
      filter: { sessionId },
      sortBy: 'created_at',
      order: 'desc',
      limit: 1,
    });
    if (!run) throw notFound(`session ${sessionId} not found`);
    return isTerminal(run.state) ? { conversation_id: run.conversationId } : {};
  }

  // ─────────────────────────────────────────────── follow-up and cancel

  async followup(
    principal: Principal,
    runId: string,
    input: unknown,
    ctx: { idempotency?: IdempotencyContext } = {},
  ): Promise<WriteResult<RunFollowupResponse>> {
    const { message } = parseOrThrow(RunFollowupRequestSchema, input, 'follow-up');
    const early = await this.lookupReplay<RunFollowupResponse>(principal, ctx.idempotency);
    if (early) return early;
    const now = this.clock.now();
    const followup: FollowupRecord = { id: newId(), runId, message, createdAt: isoTime(now), creatorUid: principal.uid };
    const respond = (r: RunRecord) => ({ status: 200, body: { run_id: r.id, state: r.state } });
    const result = await this.applyEvent(
      runId,
      { type: 'followup' },
      {
        teamUid: principal.team_uid,
        followup,
        // A re-queued run starts a fresh execution: new lease budget, no stale status.
        patch: (run) => (run.state === 'SUCCEEDED' || run.state === 'FAILED' ? { statusMessage: null, lease: null, attempts: 0 } : {}),
        idempotency: idempotencyWrite(principal, ctx.idempotency, now, this.idempotencyTtlMs, respond),
      },
    );
    return answer(result, runId, ctx.idempotency, {
      refused: (run) => conflict(`run ${runId} is ${run.state}; a cancelled or errored run cannot be continued, start a new run`),
      applied: (run) => {
        emitSafely(this.events, this.onError, 'run.followup', {
          run: toRunItem(run),
          team_uid: run.teamUid,
          followup_id: followup.id,
          message,
        });
        return { ...respond(run), replayed: false } as WriteResult<RunFollowupResponse>;
      },
    });
  }

  async cancel(principal: Principal, runId: string, ctx: { idempotency?: IdempotencyContext } = {}): Promise<WriteResult<string>> {
    const early = await this.lookupReplay<string>(principal, ctx.idempotency);
    if (early) return early;
    const now = this.clock.now();
    const result = await this.applyEvent(
      runId,
      { type: 'cancel' },
      {
        teamUid: principal.team_uid,
        patch: () => ({ lease: null, statusMessage: { message: `Cancelled by ${principal.display_name ?? principal.uid}` } }),
        idempotency: idempotencyWrite(principal, ctx.idempotency, now, this.idempotencyTtlMs, (r) => ({ status: 200, body: r.id })),
      },
    );
    return answer(result, runId, ctx.idempotency, {
      refused: (run) => invalidRequest(`run ${runId} is ${run.state}; only a queued or active run can be cancelled`),
      applied: (run) => ({ status: 200, body: run.id, replayed: false }),
    });
  }

  // ─────────────────────────────────────────────── the one transition path

  /** Apply `event` to a run, the one way any run changes state (run/apply-event.ts). */
  async applyEvent(runId: string, event: RunEvent, options: ApplyEventOptions = {}): Promise<ApplyEventResult> {
    return applyRunEvent(this, runId, event, options);
  }

  // ─────────────────────────────────────────────── helpers

  private async requireRun(principal: Principal, runId: string): Promise<RunRecord> {
    const run = await this.store.runs.get(runId, principal.team_uid);
    if (!run) throw notFound(`run ${runId} not found`);
    return run;
  }

  private lookupReplay<T>(principal: Principal, ctx: IdempotencyContext | undefined): Promise<WriteResult<T> | undefined> {
    return lookupReplay<T>(this.store.idempotency, principal, ctx, isoTime(this.clock.now()));
  }
}

/**
 * A caller's answer to its write through `applyEvent`: the stored answer for a repeated key, a
 * 404 for a run that is not the caller's team's, or the caller's own answer for a refusal or a
 * change. (`lease_lost` only comes of worker writes; a caller's run that vanished is not found.)
 */
function answer<T>(
  result: ApplyEventResult,
  runId: string,
  idempotency: IdempotencyContext | undefined,
  on: { refused: (run: RunRecord, reason: RefusalReason) => AgentRunError; applied: (run: RunRecord) => WriteResult<T> },
): WriteResult<T> {
  switch (result.kind) {
    case 'replayed':
      return replay(result.record, idempotency?.fingerprint ?? '');
    case 'refused':
      throw on.refused(result.run, result.reason);
    case 'lease_lost':
      throw notFound(`run ${runId} not found`);
    case 'applied':
      return on.applied(result.run);
  }
}
