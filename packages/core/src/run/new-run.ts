import type { AmbientAgentConfig } from '../models/config.js';
import type { AgentSkill, RunCreatorInfo, RunScheduleInfo, RunTrigger } from '../models/run.js';
import type { RunSourceType } from '../models/run-state.js';
import type { AttachmentRecord, RunRecord } from './record.js';

/**
 * What the one who starts a run decides about it: the run API from a request (run/run-request.ts),
 * the webhook ingress from an automation (ingress/webhook-run.ts). Everything else about a new run
 * is the same however it started, and is set by `newRun` alone.
 */
export interface NewRunFacts {
  /** Chosen by the caller, because its attachments are stored under it. */
  id: string;
  teamUid: string;
  title: string;
  prompt: string;
  source: RunSourceType;
  creator: RunCreatorInfo;
  /** The resolved configuration (skill and name applied). */
  config: AmbientAgentConfig;
  skill: AgentSkill | null;
  /**
   * The conversation this run continues; when absent, a new one named by the run's own ID, so a
   * conversation agentrun started can be told from one a caller named (run/conversation-redirect.ts).
   */
  conversationId?: string | undefined;
  parentRunId?: string | null | undefined;
  /** The parent's own ancestors (nearest first); the new run's are the parent and these. */
  parentAncestorRunIds?: readonly string[];
  agentIdentityUid?: string | null | undefined;
  factoryUid: string | null;
  trigger: RunTrigger | null;
  /** For runs a schedule starts (schedules/scheduled-run.ts). */
  schedule?: RunScheduleInfo | null | undefined;
  /** The files stored with the run; the record lists their names, types and sizes. */
  attachments: readonly AttachmentRecord[];
  /** The creation instant (RFC 3339, util/clock.ts `isoTime`). */
  now: string;
}

/**
 * A run as it is first stored: `QUEUED`, never claimed, no lease, no session, no status, created
 * and updated at the same instant (docs/state-machine.md: every run starts in `QUEUED`).
 */
export function newRun(facts: NewRunFacts): RunRecord {
  return {
    id: facts.id,
    teamUid: facts.teamUid,
    title: facts.title,
    prompt: facts.prompt,
    state: 'QUEUED',
    createdAt: facts.now,
    updatedAt: facts.now,
    startedAt: null,
    statusMessage: null,
    source: facts.source,
    creator: facts.creator,
    config: facts.config,
    sessionId: null,
    sessionLink: null,
    conversationId: facts.conversationId ?? facts.id,
    parentRunId: facts.parentRunId ?? null,
    artifacts: [],
    ancestorRunIds: facts.parentRunId ? [facts.parentRunId, ...(facts.parentAncestorRunIds ?? [])] : [],
    agentIdentityUid: facts.agentIdentityUid ?? null,
    factoryUid: facts.factoryUid,
    skill: facts.skill,
    trigger: facts.trigger,
    schedule: facts.schedule ?? null,
    attachments: facts.attachments.map((a) => ({ file_name: a.fileName, mime_type: a.mimeType, size: a.data.byteLength })),
    requestUsage: null,
    attempts: 0,
    lease: null,
  };
}
