import type { Principal } from '../auth/principal.js';
import { AgentRunError, conflict, invalidRequest, notFound } from '../errors.js';
import { type AgentRunEvents, emitSafely } from '../events.js';
import { decodeStandardBase64 } from '../models/base64.js';
import type { AmbientAgentConfig } from '../models/config.js';
import { ListRunsQuerySchema, METADATA_PARAM, RunAgentRequestSchema, RunFollowupRequestSchema } from '../models/requests.js';
import type { ListRunsResponse, RunAgentResponse, RunFollowupResponse, RunItem, RunTrigger } from '../models/run.js';
import type { RunSourceType } from '../models/run-state.js';
import { parseOrThrow } from '../models/validate.js';
import type { IdempotencyRecord, IdempotencyWrite, RunExpectation, RunPatch, Store } from '../store/store.js';
import { type Clock, isoTime, systemClock } from '../util/clock.js';
import { newId } from '../util/ids.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import {
  DEFAULT_IDEMPOTENCY_TTL_MS,
  type IdempotencyContext,
  idempotencyScope,
  idempotencyWrite,
  replay,
  type WriteResult,
} from './idempotency.js';
import { type RunFilter, type RunSortKey, type SortOrder, sortValue } from './list-query.js';
import { type AttachmentRecord, type FollowupRecord, type RunRecord, toRunItem } from './record.js';
import { parseSkillSpec } from './skill.js';
import { type RunEvent, transition } from './state-machine.js';
import { titleFromPrompt } from './title.js';

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
}

/** Extra facts about a run that come from the caller's context rather than the request body. */
export interface CreateRunContext {
  source?: RunSourceType;
  idempotency?: IdempotencyContext;
  /** For runs started by the webhook ingress. */
  trigger?: RunTrigger;
  factoryUid?: string;
}

/** Options of `applyEvent`, the one way any run changes state. */
export interface ApplyEventOptions {
  teamUid?: string;
  /** Worker writes: apply only while this worker holds the lease. */
  workerId?: string;
  /** Lease recovery: apply only if the run's lease expired at or before this instant. */
  leaseExpiredBy?: string;
  /** Further fields to set, computed from the run as read. */
  patch?: (run: RunRecord) => RunPatch;
  followup?: FollowupRecord;
  idempotency?: IdempotencyWrite<RunRecord>;
}

export type ApplyEventResult =
  | { kind: 'applied'; run: RunRecord; from: RunRecord['state'] }
  | { kind: 'replayed'; record: IdempotencyRecord }
  /** The state machine refused the event for the run as it is now. */
  | { kind: 'refused'; reason: 'terminal' | 'invalid'; run: RunRecord }
  /** A worker write whose lease is gone (expired, re-claimed, or the run ended). */
  | { kind: 'lease_lost'; run: RunRecord | undefined };

/** Compare-and-set retries before giving up on a run that keeps changing under us. */
const MAX_CAS_ATTEMPTS = 8;

/**
 * The run API's use cases. Validates input, applies the state machine, keeps every read and write
 * inside the caller's team, and emits events after each stored change.
 */
export class RunService {
  readonly store: Store;
  readonly events: AgentRunEvents;
  readonly clock: Clock;
  readonly maxAttempts: number;
  readonly onError: (error: unknown) => void;
  private readonly idempotencyTtlMs: number;

  constructor(options: RunServiceOptions) {
    this.store = options.store;
    this.events = options.events;
    this.clock = options.clock ?? systemClock;
    this.idempotencyTtlMs = options.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS;
    this.maxAttempts = options.maxAttempts ?? 3;
    this.onError = options.onError ?? ((error) => console.error('[agentrun] event listener failed', error));
  }

  // ─────────────────────────────────────────────── create

  async create(principal: Principal, input: unknown, ctx: CreateRunContext = {}): Promise<WriteResult<RunAgentResponse>> {
    const request = parseOrThrow(RunAgentRequestSchema, input, 'run request');
    const early = await this.lookupReplay<RunAgentResponse>(principal, ctx.idempotency);
    if (early) return early;

    const now = this.clock.now();
    const nowIso = isoTime(now);
    const runId = newId();

    // `skill` wins over `config.skill_spec`, which wins over the first of the Python client's
    // `config.skills` (its server echoes that one as `skill_spec`); a skill names the run unless a
    // name was given.
    const [skillSpec, skillField] =
      request.skill !== undefined
        ? [request.skill, 'skill']
        : request.config?.skill_spec !== undefined
          ? [request.config.skill_spec, 'config.skill_spec']
          : [request.config?.skills?.[0], 'config.skills[0]'];
    const skill = skillSpec === undefined ? null : parseSkillSpec(skillSpec, skillField);
    const config: AmbientAgentConfig = { ...request.config };
    if (skill) {
      config.skill_spec = skill.spec;
      config.name ??= skill.name;
    }

    let conversationId = request.conversation_id;
    if (request.parent_run_id !== undefined) {
      const parent = await this.store.runs.get(request.parent_run_id, principal.team_uid);
      if (!parent) throw invalidRequest(`invalid run request: parent_run_id: no run ${request.parent_run_id} in this team`);
      conversationId ??= parent.conversationId;
    }

    // Work sent to a factory's foreman is a run of that factory.
    let factoryUid = ctx.factoryUid ?? ctx.trigger?.factory_uid ?? null;
    if (factoryUid === null && request.agent_identity_uid !== undefined) {
      factoryUid = (await this.store.factories.findByForeman(principal.team_uid, request.agent_identity_uid))?.uid ?? null;
    }

    const attachments = collectAttachments(runId, request);
    const prompt = request.prompt ?? '';
    const run: RunRecord = {
      id: runId,
      teamUid: principal.team_uid,
      title: request.title?.trim() || titleFromPrompt(prompt, skill ? skill.name : 'Untitled run'),
      prompt,
      state: 'QUEUED',
      createdAt: nowIso,
      updatedAt: nowIso,
      startedAt: null,
      statusMessage: null,
      source: ctx.source ?? 'API',
      creator: creatorOf(principal),
      config,
      sessionId: null,
      sessionLink: null,
      conversationId: conversationId ?? newId(),
      parentRunId: request.parent_run_id ?? null,
      agentIdentityUid: request.agent_identity_uid ?? null,
      factoryUid,
      skill,
      trigger: ctx.trigger ?? null,
      attachments: attachments.map((a) => ({ file_name: a.fileName, mime_type: a.mimeType, size: a.data.byteLength })),
      attempts: 0,
      lease: null,
    };

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
    const { metadata, rest } = splitMetadata(input);
    const q = parseOrThrow(ListRunsQuerySchema, rest, 'query');
    const limit = q.limit;
    if (q.skill !== undefined && q.skill_spec !== undefined && q.skill !== q.skill_spec) {
      throw invalidRequest('invalid query: skill and skill_spec are aliases; give one of them');
    }
    if (q.name !== undefined && q.config_name !== undefined && q.name !== q.config_name) {
      throw invalidRequest('invalid query: name and config_name are aliases; give one of them');
    }
    // agentrun runs carry no artifacts, schedule, ancestry filter or metadata, and run remotely
    // (on the host's executor): these client filters match nothing (docs/run-api.md).
    if (
      q.artifact_type !== undefined ||
      q.schedule_id !== undefined ||
      q.ancestor_run_id !== undefined ||
      q.execution_location === 'LOCAL' ||
      metadata > 0
    ) {
      if (q.cursor !== undefined) decodeCursor(q.cursor, q.sort_by, q.sort_order);
      return { runs: [], page_info: { has_next_page: false } };
    }

    const cursor = q.cursor === undefined ? undefined : decodeCursor(q.cursor, q.sort_by, q.sort_order);
    const filter: RunFilter = {};
    if (q.state) filter.states = q.state;
    const name = q.name ?? q.config_name;
    if (name !== undefined) filter.name = name;
    if (q.executor !== undefined) filter.creatorUid = q.executor;
    if (q.executor !== undefined && q.creator !== undefined && q.executor !== q.creator)
      return { runs: [], page_info: { has_next_page: false } };
    if (q.model_id !== undefined) filter.modelId = q.model_id;
    if (q.creator !== undefined) filter.creatorUid = q.creator;
    if (q.source !== undefined) filter.source = q.source;
    if (q.created_after !== undefined) filter.createdAfter = q.created_after;
    if (q.created_before !== undefined) filter.createdBefore = q.created_before;
    if (q.updated_after !== undefined) filter.updatedAfter = q.updated_after;
    if (q.environment_id !== undefined) filter.environmentId = q.environment_id;
    const skillSpec = q.skill_spec ?? q.skill;
    if (skillSpec !== undefined) filter.skillSpec = skillSpec;
    if (q.q !== undefined) filter.q = q.q;
    if (q.factory_uid !== undefined) filter.factoryUid = q.factory_uid;
    if (q.automation_id !== undefined) filter.automationId = q.automation_id;

    const asOf = cursor ? cursor.asOf : await this.walkSnapshot(principal.team_uid, filter, q.sort_by, q.sort_order);
    const rows = await this.store.runs.list({
      teamUid: principal.team_uid,
      filter,
      sortBy: q.sort_by,
      order: q.sort_order,
      limit: limit + 1,
      ...(cursor ? { after: { value: cursor.value, id: cursor.id } } : {}),
      ...(asOf !== undefined ? { asOf } : {}),
    });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const hasNext = rows.length > limit && last !== undefined;
    return {
      runs: page.map(toRunItem),
      page_info: hasNext
        ? {
            has_next_page: true,
            next_cursor: encodeCursor({
              sortBy: q.sort_by,
              order: q.sort_order,
              value: sortValue(last, q.sort_by),
              id: last.id,
              ...(asOf !== undefined ? { asOf } : {}),
            }),
          }
        : { has_next_page: false },
    };
  }

  /**
   * The bound of a walk in ascending `updated_at` order, fixed at its first page. Only that order
   * needs one: a run updated mid-walk moves to the end, past the cursor, and would be listed twice.
   * (In descending order it moves behind the cursor and cannot repeat; `created_at` never moves.)
   * The bound is the newest matching `updated_at` or now, whichever is later, so runs stamped by
   * another instance whose clock runs ahead are not hidden.
   */
  private async walkSnapshot(teamUid: string, filter: RunFilter, sortBy: RunSortKey, order: SortOrder): Promise<string | undefined> {
    if (sortBy !== 'updated_at' || order !== 'asc') return undefined;
    const [newest] = await this.store.runs.list({ teamUid, filter, sortBy: 'updated_at', order: 'desc', limit: 1 });
    const now = isoTime(this.clock.now());
    return newest && newest.updatedAt > now ? newest.updatedAt : now;
  }

  async getAttachment(principal: Principal, runId: string, fileName: string): Promise<AttachmentRecord> {
    await this.requireRun(principal, runId);
    const attachment = await this.store.runs.getAttachment(principal.team_uid, runId, fileName);
    if (!attachment) throw notFound(`run ${runId} has no attachment ${JSON.stringify(fileName)}`);
    return attachment;
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
    switch (result.kind) {
      case 'replayed':
        return replay(result.record, ctx.idempotency?.fingerprint ?? '');
      case 'refused':
        throw conflict(`run ${runId} is ${result.run.state}; a cancelled or errored run cannot be continued, start a new run`);
      case 'lease_lost':
        throw notFound(`run ${runId} not found`);
      case 'applied':
        emitSafely(this.events, this.onError, 'run.followup', {
          run: toRunItem(result.run),
          team_uid: result.run.teamUid,
          followup_id: followup.id,
          message,
        });
        return { ...respond(result.run), replayed: false } as WriteResult<RunFollowupResponse>;
    }
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
    switch (result.kind) {
      case 'replayed':
        return replay(result.record, ctx.idempotency?.fingerprint ?? '');
      case 'refused':
        throw invalidRequest(`run ${runId} is ${result.run.state}; only a queued or active run can be cancelled`);
      case 'lease_lost':
        throw notFound(`run ${runId} not found`);
      case 'applied':
        return { status: 200, body: result.run.id, replayed: false };
    }
  }

  // ─────────────────────────────────────────────── the one transition path

  /**
   * Apply `event` to a run: read it, ask the state machine, and write with compare-and-set on the
   * state read (and the lease holder, for worker writes). If the run changed in between, read it
   * again and decide again. Emits `run.state_changed` when the state changed.
   */
  async applyEvent(runId: string, event: RunEvent, options: ApplyEventOptions = {}): Promise<ApplyEventResult> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const run = await this.store.runs.get(runId, options.teamUid);
      if (!run) {
        if (options.workerId !== undefined) return { kind: 'lease_lost', run: undefined };
        throw notFound(`run ${runId} not found`);
      }
      if (options.workerId !== undefined && run.lease?.workerId !== options.workerId) return { kind: 'lease_lost', run };

      const decision = transition(run.state, event, { attempts: run.attempts, maxAttempts: this.maxAttempts });
      if (!decision.ok) return { kind: 'refused', reason: decision.reason, run };

      const expect: RunExpectation = { state: run.state };
      if (options.workerId !== undefined) expect.workerId = options.workerId;
      if (options.leaseExpiredBy !== undefined) {
        if (!run.lease || run.lease.expiresAt > options.leaseExpiredBy) return { kind: 'lease_lost', run };
        expect.leaseExpiredBy = options.leaseExpiredBy;
      }
      const outcome = await this.store.runs.transition({
        runId,
        ...(options.teamUid !== undefined ? { teamUid: options.teamUid } : {}),
        expect,
        patch: { ...options.patch?.(run), state: decision.to },
        now: isoTime(this.clock.now()),
        ...(options.followup ? { followup: options.followup } : {}),
        ...(options.idempotency ? { idempotency: options.idempotency } : {}),
      });
      if (outcome.replayed) return { kind: 'replayed', record: outcome.replayed };
      if (outcome.result.applied) {
        const next = outcome.result.run;
        if (next.state !== run.state) {
          emitSafely(this.events, this.onError, 'run.state_changed', {
            run: toRunItem(next),
            team_uid: next.teamUid,
            from: run.state,
            to: next.state,
          });
        }
        return { kind: 'applied', run: next, from: run.state };
      }
      // The run changed between our read and our write: decide again on what it is now.
    }
    throw new AgentRunError('conflict', `run ${runId} is changing too quickly; retry`, { retryable: true });
  }

  // ─────────────────────────────────────────────── helpers

  private async requireRun(principal: Principal, runId: string): Promise<RunRecord> {
    const run = await this.store.runs.get(runId, principal.team_uid);
    if (!run) throw notFound(`run ${runId} not found`);
    return run;
  }

  /** Answer a repeated key before doing any work (the run may have changed since). */
  private async lookupReplay<T>(principal: Principal, ctx: IdempotencyContext | undefined): Promise<WriteResult<T> | undefined> {
    if (!ctx) return undefined;
    const record = await this.store.idempotency.get(idempotencyScope(principal), ctx.key, isoTime(this.clock.now()));
    return record ? replay<T>(record, ctx.fingerprint) : undefined;
  }
}

const creatorOf = (p: Principal): RunRecord['creator'] => {
  const creator: RunRecord['creator'] = { type: p.type, uid: p.uid };
  if (p.display_name !== undefined) creator.display_name = p.display_name;
  if (p.email !== undefined) creator.email = p.email;
  if (p.photo_url !== undefined) creator.photo_url = p.photo_url;
  return creator;
};

const IMAGE_EXT: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/gif': 'gif', 'image/webp': 'webp' };

function collectAttachments(
  runId: string,
  request: {
    attachments?: { file_name: string; mime_type: string; data: string }[] | undefined;
    images?: { mime_type: string; data: string }[] | undefined;
  },
): AttachmentRecord[] {
  const out: AttachmentRecord[] = (request.attachments ?? []).map((a) => ({
    runId,
    fileName: a.file_name,
    mimeType: a.mime_type,
    data: decodeBase64(a.data),
  }));
  const taken = new Set(out.map((a) => a.fileName));
  for (const [i, image] of (request.images ?? []).entries()) {
    let name = `image-${i + 1}.${IMAGE_EXT[image.mime_type] ?? 'bin'}`;
    while (taken.has(name)) name = `_${name}`;
    taken.add(name);
    out.push({ runId, fileName: name, mimeType: image.mime_type, data: decodeBase64(image.data) });
  }
  return out;
}

/** Data the request schema has already checked is canonical base64 (models/base64.ts). */
const decodeBase64 = (data: string): Uint8Array => {
  const bytes = decodeStandardBase64(data);
  if (bytes === undefined) throw invalidRequest('attachment data must be standard base64');
  return bytes;
};

/**
 * Take the Python client's `metadata[key]=value` pairs out of a list query: at most 5, checked,
 * counted (runs here carry no metadata, so any pair matches nothing).
 */
function splitMetadata(input: Record<string, unknown>): { metadata: number; rest: Record<string, unknown> } {
  const rest: Record<string, unknown> = Object.create(null);
  let metadata = 0;
  for (const key of Object.keys(input)) {
    if (!key.startsWith('metadata[')) {
      rest[key] = input[key];
      continue;
    }
    if (!METADATA_PARAM.test(key)) throw invalidRequest(`invalid query: ${key}: metadata keys are 1 to 64 of A-Z a-z 0-9 . _ -`);
    const value = input[key];
    if (typeof value !== 'string' || value.length > 256) throw invalidRequest(`invalid query: ${key}: at most 256 characters`);
    if (++metadata > 5) throw invalidRequest('invalid query: at most 5 metadata pairs');
  }
  return { metadata, rest };
}
