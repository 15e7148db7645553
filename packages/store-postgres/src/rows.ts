import type { FollowupRecord } from '@agentrun/core';
import type {
  ApiKeyRecord,
  AutomationRecord,
  DeliveryRecord,
  DeliveryRequest,
  FactoryRecord,
  IdempotencyRecord,
  RunRecord,
  SecretRecord,
  WebhookRecord,
} from '@agentrun/core/store';

/** Row shapes as `pg` returns them (timestamptz as Date, jsonb parsed, bytea as Buffer). */
/** Timestamps are ISO text when the run comes as one JSON column (runs-sql.ts `Call`). */
export interface RunRow {
  id: string;
  team_uid: string;
  title: string;
  prompt: string;
  state: RunRecord['state'];
  created_at: Date | string;
  updated_at: Date | string;
  started_at: Date | string | null;
  status_message: RunRecord['statusMessage'];
  source: RunRecord['source'];
  creator: RunRecord['creator'];
  config: RunRecord['config'];
  session_id: string | null;
  session_link: string | null;
  conversation_id: string;
  parent_run_id: string | null;
  ancestor_run_ids: string[];
  agent_identity_uid: string | null;
  factory_uid: string | null;
  skill: RunRecord['skill'];
  trigger: RunRecord['trigger'];
  /** Absent on a row of a statement that does not read it. */
  schedule: RunRecord['schedule'] | undefined;
  attachments: RunRecord['attachments'];
  request_usage: RunRecord['requestUsage'];
  /** Not in RUN_COLUMNS: written only by the artifact store (artifacts.ts), '[]' for a new run. */
  artifacts: RunRecord['artifacts'];
  attempts: number;
  lease_worker_id: string | null;
  lease_expires_at: Date | string | null;
}

/** The columns a run is written with (generated columns are derived by the database). */
export const RUN_COLUMNS = [
  'id',
  'team_uid',
  'title',
  'prompt',
  'state',
  'created_at',
  'updated_at',
  'started_at',
  'status_message',
  'source',
  'creator',
  'config',
  'session_id',
  'session_link',
  'conversation_id',
  'parent_run_id',
  'agent_identity_uid',
  'factory_uid',
  'skill',
  'trigger',
  'schedule',
  'attachments',
  'ancestor_run_ids',
  'request_usage',
  'attempts',
  'lease_worker_id',
  'lease_expires_at',
] as const;

/** Every column `runFromRow` reads: what a statement answering a run returns (statements.ts: never `*`). */
export const RUN_ROW_COLUMNS = [...RUN_COLUMNS, 'artifacts'] as const;

export const iso = (d: Date | string): string => (typeof d === 'string' ? new Date(d).toISOString() : d.toISOString());
const isoOrNull = (d: Date | string | null): string | null => (d === null ? null : iso(d));

/** jsonb parameters are sent as JSON text: `pg` would turn a JS array into a Postgres array. */
export const json = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value));

export function runFromRow(r: RunRow): RunRecord {
  return {
    id: r.id,
    teamUid: r.team_uid,
    title: r.title,
    prompt: r.prompt,
    state: r.state,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    startedAt: isoOrNull(r.started_at),
    statusMessage: r.status_message,
    source: r.source,
    creator: r.creator,
    config: r.config,
    sessionId: r.session_id,
    sessionLink: r.session_link,
    conversationId: r.conversation_id,
    parentRunId: r.parent_run_id,
    ancestorRunIds: r.ancestor_run_ids,
    agentIdentityUid: r.agent_identity_uid,
    factoryUid: r.factory_uid,
    skill: r.skill,
    trigger: r.trigger,
    schedule: r.schedule ?? null,
    attachments: r.attachments,
    requestUsage: r.request_usage,
    artifacts: r.artifacts,
    attempts: r.attempts,
    lease:
      r.lease_worker_id !== null && r.lease_expires_at !== null
        ? { workerId: r.lease_worker_id, expiresAt: iso(r.lease_expires_at) }
        : null,
  };
}

/** A run as a row of `runs` by column name, JSON columns as values (for `jsonb_populate_recordset`). */
export function runToRow(run: RunRecord): Record<(typeof RUN_COLUMNS)[number], unknown> {
  return {
    id: run.id,
    team_uid: run.teamUid,
    title: run.title,
    prompt: run.prompt,
    state: run.state,
    created_at: run.createdAt,
    updated_at: run.updatedAt,
    started_at: run.startedAt,
    status_message: run.statusMessage,
    source: run.source,
    creator: run.creator,
    config: run.config,
    session_id: run.sessionId,
    session_link: run.sessionLink,
    conversation_id: run.conversationId,
    parent_run_id: run.parentRunId,
    agent_identity_uid: run.agentIdentityUid,
    factory_uid: run.factoryUid,
    skill: run.skill,
    trigger: run.trigger,
    schedule: run.schedule,
    attachments: run.attachments,
    ancestor_run_ids: run.ancestorRunIds,
    request_usage: run.requestUsage,
    attempts: run.attempts,
    lease_worker_id: run.lease?.workerId ?? null,
    lease_expires_at: run.lease?.expiresAt ?? null,
  };
}

/** The jsonb columns of `runs`: sent as JSON text when a run is inserted column by column. */
export const RUN_JSON_COLUMNS: ReadonlySet<string> = new Set([
  'status_message',
  'creator',
  'config',
  'skill',
  'trigger',
  'schedule',
  'attachments',
  'request_usage',
]);

/** A run as column values, in `RUN_COLUMNS` order, JSON columns as JSON text. */
export function runToValues(run: RunRecord): unknown[] {
  const row = runToRow(run);
  return RUN_COLUMNS.map((column) => (RUN_JSON_COLUMNS.has(column) ? json(row[column]) : row[column]));
}

export interface IdempotencyRow {
  scope: string;
  key: string;
  fingerprint: string;
  status: number;
  body: unknown;
  created_at: Date;
  expires_at: Date;
}

export const idempotencyFromRow = (r: IdempotencyRow): IdempotencyRecord => ({
  scope: r.scope,
  key: r.key,
  fingerprint: r.fingerprint,
  status: r.status,
  body: r.body,
  createdAt: iso(r.created_at),
  expiresAt: iso(r.expires_at),
});

export interface FollowupRow {
  id: string;
  run_id: string;
  message: string;
  created_at: Date;
  creator_uid: string;
}

export const followupFromRow = (r: FollowupRow): FollowupRecord => ({
  id: r.id,
  runId: r.run_id,
  message: r.message,
  createdAt: iso(r.created_at),
  creatorUid: r.creator_uid,
});

export interface ApiKeyRow {
  id: string;
  hash: string;
  prefix: string;
  name: string;
  principal: ApiKeyRecord['principal'];
  created_by: ApiKeyRecord['createdBy'];
  scopes: ApiKeyRecord['scopes'];
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

export const apiKeyFromRow = (r: ApiKeyRow): ApiKeyRecord => ({
  id: r.id,
  hash: r.hash,
  prefix: r.prefix,
  name: r.name,
  principal: r.principal,
  createdBy: r.created_by,
  scopes: r.scopes,
  createdAt: iso(r.created_at),
  expiresAt: isoOrNull(r.expires_at),
  revokedAt: isoOrNull(r.revoked_at),
  lastUsedAt: isoOrNull(r.last_used_at),
});

export interface FactoryRow {
  uid: string;
  team_uid: string;
  name: string;
  foreman_agent_identity_uid: string | null;
  created_at: Date;
  updated_at: Date;
}

export const factoryFromRow = (r: FactoryRow): FactoryRecord => ({
  uid: r.uid,
  teamUid: r.team_uid,
  name: r.name,
  foremanAgentIdentityUid: r.foreman_agent_identity_uid,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

export interface SecretRow {
  team_uid: string;
  name: string;
  ciphertext: string;
  created_at: Date;
  updated_at: Date;
}

export const secretFromRow = (r: SecretRow): SecretRecord => ({
  teamUid: r.team_uid,
  name: r.name,
  ciphertext: r.ciphertext,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

export interface WebhookRow {
  uid: string;
  team_uid: string;
  factory_uid: string;
  name: string;
  auth_mode: WebhookRecord['authMode'];
  signature_scheme: string | null;
  secret_name: string;
  delivery_id_header: string | null;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export const webhookFromRow = (r: WebhookRow): WebhookRecord => ({
  uid: r.uid,
  teamUid: r.team_uid,
  factoryUid: r.factory_uid,
  name: r.name,
  authMode: r.auth_mode,
  signatureScheme: r.signature_scheme,
  secretName: r.secret_name,
  deliveryIdHeader: r.delivery_id_header,
  enabled: r.enabled,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
  deletedAt: isoOrNull(r.deleted_at),
});

export interface AutomationRow {
  id: string;
  team_uid: string;
  factory_uid: string;
  name: string;
  prompt: string;
  enabled: boolean;
  config: AutomationRecord['config'];
  triggers: AutomationRecord['triggers'];
  /** The triggers' JSON text in the order written; null: read `triggers`. */
  triggers_text: string | null;
  created_at: Date;
  updated_at: Date;
}

export const automationFromRow = (r: AutomationRow): AutomationRecord => ({
  id: r.id,
  teamUid: r.team_uid,
  factoryUid: r.factory_uid,
  name: r.name,
  prompt: r.prompt,
  enabled: r.enabled,
  config: r.config,
  triggers: r.triggers_text !== null && r.triggers_text !== undefined ? JSON.parse(r.triggers_text) : r.triggers,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

export interface DeliveryRow {
  id: string;
  team_uid: string;
  factory_uid: string;
  webhook_uid: string;
  identity: string | null;
  size: number;
  received_at: Date;
  status: DeliveryRecord['status'];
  /** A `Buffer` from `pg`, a `Uint8Array` from PGlite. */
  payload: Uint8Array | null;
  /** Absent from a statement that does not read it (an evaluation's claim). */
  request?: RequestJson | null;
  run_ids?: string[] | null;
}

/** `deliveries.request` (migrations/0004_delivery_details.ts). */
interface RequestJson {
  headers: [string, string][];
  omitted_headers: number;
  remote_address: string | null;
}

export const requestJson = (r: DeliveryRequest): RequestJson => ({
  headers: r.headers.map(([name, value]) => [name, value]),
  omitted_headers: r.omittedHeaders,
  remote_address: r.remoteAddress,
});

export const deliveryFromRow = (r: DeliveryRow): DeliveryRecord => ({
  id: r.id,
  teamUid: r.team_uid,
  factoryUid: r.factory_uid,
  webhookUid: r.webhook_uid,
  identity: r.identity,
  size: r.size,
  receivedAt: iso(r.received_at),
  status: r.status,
  // A plain Uint8Array of its own: callers compare and keep it without holding pg's buffer pool.
  payload: r.payload === null ? null : new Uint8Array(r.payload),
  ...(r.request
    ? { request: { headers: r.request.headers, omittedHeaders: r.request.omitted_headers, remoteAddress: r.request.remote_address } }
    : {}),
  ...(r.run_ids ? { runIds: r.run_ids } : {}),
});
