import type { Principal } from '../auth/principal.js';
import { requireEnvironmentId } from '../environments/check.js';
import { invalidRequest } from '../errors.js';
import { type AvailableHarnesses, requireHarness } from '../harness/harness-check.js';
import type { RunAgentRequest } from '../models/requests.js';
import type { RunCreatorInfo, RunScheduleInfo, RunTrigger } from '../models/run.js';
import type { RunSourceType } from '../models/run-state.js';
import { resolveSkill } from '../skills/resolve-skill.js';
import type { SkillCatalog } from '../skills/skill-catalog.js';
import { skilledConfig } from '../skills/skilled-config.js';
import type { Store } from '../store/store.js';
import { newRun } from './new-run.js';
import { type AttachmentRecord, MAX_ANCESTORS, type RunRecord } from './record.js';
import { requestAttachments } from './request-attachments.js';
import { requestConfig } from './request-config.js';
import { titleFromPrompt } from './title.js';

/** Facts about a requested run that come from the caller's context rather than the request body. */
export interface RunRequestContext {
  source?: RunSourceType;
  /** For runs started by the webhook ingress. */
  trigger?: RunTrigger;
  /** For runs a schedule starts (schedules/scheduled-run.ts). */
  schedule?: RunScheduleInfo;
  factoryUid?: string;
}

/** A new run and the files to store with it. */
export interface RequestedRun {
  run: RunRecord;
  attachments: AttachmentRecord[];
}

/**
 * The run a request of the run API asks for (docs/run-api.md, "Start a run"), checked against
 * the team's data: a parent run must be one of the team's, and its conversation is continued
 * unless one is named. Reads only; storing it is the caller's.
 */
export async function runFromRequest(
  store: Store,
  principal: Principal,
  request: RunAgentRequest,
  ctx: RunRequestContext,
  runId: string,
  now: string,
  skills: SkillCatalog,
  /** The harnesses this server runs, where it knows them: a run naming another is a 400. */
  harnesses?: AvailableHarnesses,
): Promise<RequestedRun> {
  const asked = requestConfig(request);
  // A skill resolves against the team's repositories, pinned to the commit it was read at.
  const resolved = asked.skill ? await resolveSkill(skills, principal.team_uid, asked.skill.spec, asked.skillField) : null;
  const skill = resolved?.skill ?? null;
  const config = resolved ? skilledConfig(asked.config, resolved) : asked.config;
  await requireEnvironmentId(store, principal.team_uid, config.environment_id, 'run request: config.environment_id');
  await requireHarness(store, principal.team_uid, config, harnesses, 'run request');

  let conversationId = request.conversation_id;
  let parentAncestorRunIds: readonly string[] = [];
  if (request.parent_run_id !== undefined) {
    // A parent is a run of the caller's team, however the caller came by its ID (docs/run-api.md,
    // "Runs started by runs"); its ancestry is copied, bounded, for the list's ancestor_run_id.
    const parent = await store.runs.get(request.parent_run_id, principal.team_uid);
    if (!parent) throw invalidRequest(`invalid run request: parent_run_id: no run ${request.parent_run_id} in this team`);
    if (parent.ancestorRunIds.length >= MAX_ANCESTORS) {
      throw invalidRequest(
        `invalid run request: parent_run_id: run ${parent.id} already has ${MAX_ANCESTORS} ancestors, the most a run may have`,
      );
    }
    conversationId ??= parent.conversationId;
    parentAncestorRunIds = parent.ancestorRunIds;
  }

  // Work sent to a factory's foreman is a run of that factory.
  let factoryUid = ctx.factoryUid ?? ctx.trigger?.factory_uid ?? null;
  if (factoryUid === null && request.agent_identity_uid !== undefined) {
    factoryUid = (await store.factories.findByForeman(principal.team_uid, request.agent_identity_uid))?.uid ?? null;
  }

  const attachments = await requestAttachments(runId, request);
  const prompt = request.prompt ?? '';
  const run = newRun({
    id: runId,
    teamUid: principal.team_uid,
    title: request.title?.trim() || titleFromPrompt(prompt, skill ? skill.name : 'Untitled run'),
    prompt,
    // agentrun's own (a webhook's) wins; else what the client declared, of those it may (requests.ts).
    source: ctx.source ?? request.source ?? 'API',
    creator: creatorOf(principal),
    config,
    skill,
    conversationId,
    parentRunId: request.parent_run_id,
    parentAncestorRunIds,
    agentIdentityUid: request.agent_identity_uid,
    factoryUid,
    trigger: ctx.trigger ?? null,
    schedule: ctx.schedule ?? null,
    attachments,
    now,
  });
  return { run, attachments };
}

/** The run's creator as runs show it: the principal's public fields, the ones it has. */
function creatorOf(p: Principal): RunCreatorInfo {
  const creator: RunCreatorInfo = { type: p.type, uid: p.uid };
  if (p.display_name !== undefined) creator.display_name = p.display_name;
  if (p.email !== undefined) creator.email = p.email;
  if (p.photo_url !== undefined) creator.photo_url = p.photo_url;
  return creator;
}
