import { invalidRequest } from '../errors.js';
import { type ListRunsQuery, ListRunsQuerySchema, METADATA_PARAM } from '../models/requests.js';
import { parseOrThrow } from '../models/validate.js';
import type { RunFilter } from './list-query.js';

/** A checked list request: its query parameters, and how many `metadata[key]` pairs it had. */
export interface ListRequest {
  query: ListRunsQuery;
  metadataPairs: number;
}

/**
 * Check a list request's parameters (docs/run-api.md, "List runs"): the schema, the Python
 * client's `metadata[key]=value` pairs, and aliases, which may both be given only if they agree.
 */
export function parseListRequest(input: Record<string, unknown>): ListRequest {
  const { metadataPairs, rest } = splitMetadata(input);
  const query = parseOrThrow(ListRunsQuerySchema, rest, 'query');
  if (query.skill !== undefined && query.skill_spec !== undefined && query.skill !== query.skill_spec) {
    throw invalidRequest('invalid query: skill and skill_spec are aliases; give one of them');
  }
  if (query.name !== undefined && query.config_name !== undefined && query.name !== query.config_name) {
    throw invalidRequest('invalid query: name and config_name are aliases; give one of them');
  }
  return { query, metadataPairs };
}

/**
 * The store filter a checked request asks for, or `undefined` when no run can match it: agentrun
 * runs carry no `EXTERNAL_REFERENCE` artifacts or metadata, run remotely (on the host's executor),
 * and are executed by their creator (docs/run-api.md, "List runs").
 */
export function runFilterOf({ query: q, metadataPairs }: ListRequest): RunFilter | undefined {
  if (q.artifact_type === 'EXTERNAL_REFERENCE' || q.execution_location === 'LOCAL' || metadataPairs > 0) {
    return undefined;
  }
  if (q.executor !== undefined && q.creator !== undefined && q.executor !== q.creator) return undefined;
  const filter: RunFilter = {};
  if (q.state) filter.states = q.state;
  const name = q.name ?? q.config_name;
  if (name !== undefined) filter.name = name;
  if (q.model_id !== undefined) filter.modelId = q.model_id;
  const creator = q.creator ?? q.executor;
  if (creator !== undefined) filter.creatorUid = creator;
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
  if (q.ancestor_run_id !== undefined) filter.ancestorRunId = q.ancestor_run_id;
  if (q.schedule_id !== undefined) filter.scheduleId = q.schedule_id;
  if (q.artifact_type !== undefined) filter.artifactType = q.artifact_type;
  return filter;
}

/**
 * Take the Python client's `metadata[key]=value` pairs out of a list query: at most 5, checked,
 * counted (runs here carry no metadata, so any pair matches nothing).
 */
function splitMetadata(input: Record<string, unknown>): { metadataPairs: number; rest: Record<string, unknown> } {
  const rest: Record<string, unknown> = Object.create(null);
  let metadataPairs = 0;
  for (const key of Object.keys(input)) {
    if (!key.startsWith('metadata[')) {
      rest[key] = input[key];
      continue;
    }
    if (!METADATA_PARAM.test(key)) throw invalidRequest(`invalid query: ${key}: metadata keys are 1 to 64 of A-Z a-z 0-9 . _ -`);
    const value = input[key];
    if (typeof value !== 'string' || value.length > 256) throw invalidRequest(`invalid query: ${key}: at most 256 characters`);
    if (++metadataPairs > 5) throw invalidRequest('invalid query: at most 5 metadata pairs');
  }
  return { metadataPairs, rest };
}
