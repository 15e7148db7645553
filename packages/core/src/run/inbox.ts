import * as v from 'valibot';
import type { Principal } from '../auth/principal.js';
import { AgentRunError, invalidRequest } from '../errors.js';
import { jsonObject } from '../models/json.js';
import type { RunState } from '../models/run-state.js';
import { parseOrThrow } from '../models/validate.js';
import { isoTime } from '../util/clock.js';
import { base64UrlDecode, base64UrlEncode } from '../util/ids.js';
import type { RunRecord } from './record.js';
import type { RunService } from './run-service.js';

// The factory inbox of the published Python client (factories/inbox.py), first version
// (docs/run-api.md, "The factory inbox"): a notification is a run of one of the team's factories
// that waits on a person (BLOCKED) or failed (FAILED, ERROR), named `<kind>:<run_id>`; its
// recipient is the person who started the run. Only who read what is stored (store/inbox.ts).

const KIND_OF: Partial<Record<RunState, 'blocked' | 'failed'>> = { BLOCKED: 'blocked', FAILED: 'failed', ERROR: 'failed' };
const NOTIFYING_STATES = Object.keys(KIND_OF) as RunState[];

/** `InboxItem` (types/factories/inbox_item.py), as far as agentrun has its concepts. */
const InboxItemSchema = v.object({
  notification_uid: v.string(),
  kind: v.picklist(['blocked', 'failed']),
  factory_uid: v.string(),
  factory_task_uid: v.string(),
  run_id: v.string(),
  stage: v.literal('IMPLEMENT'),
  title: v.string(),
  description: v.optional(v.string()),
  created_at: v.string(),
  recipients: v.array(v.object({ uid: v.string(), email: v.optional(v.string()) })),
  is_read: v.optional(v.boolean()),
});
type InboxItem = v.InferOutput<typeof InboxItemSchema>;

export const InboxListSchema = v.object({
  items: v.array(InboxItemSchema),
  page_info: v.object({ has_next_page: v.boolean(), next_cursor: v.optional(v.string()) }),
});
type InboxList = v.InferOutput<typeof InboxListSchema>;

const text = v.pipe(v.string(), v.maxLength(256));
/** types/factories/inbox_list_params.py. */
export const InboxListQuerySchema = v.object({
  cursor: v.optional(v.pipe(v.string(), v.maxLength(512))),
  factory_uid: v.optional(text),
  limit: v.optional(v.pipe(v.string(), v.regex(/^[0-9]{1,3}$/, 'must be an integer from 1 to 100'))),
  recipient_uid: v.optional(text),
  scope: v.optional(v.picklist(['mine', 'team'], 'must be mine or team')),
});

/** At most this many notifications in one mark request. */
const MAX_MARKED = 100;
export const InboxMarkSchema = jsonObject({
  notification_uids: v.pipe(v.array(text), v.maxLength(MAX_MARKED, `at most ${MAX_MARKED} notification_uids`)),
});
export const InboxMarkResponseSchema = v.object({
  outcomes: v.array(v.object({ notification_uid: v.string(), ok: v.boolean() })),
});
type InboxMarkResponse = v.InferOutput<typeof InboxMarkResponseSchema>;

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 100;

/** `mine` and the marks are a person's: a service account's key gets this 403. */
function requireUser(p: Principal, what: string): void {
  if (p.type !== 'user') {
    throw new AgentRunError('forbidden', `${what} is a person's; a service account's key lists scope=team`);
  }
}

const notificationUid = (run: RunRecord) => `${KIND_OF[run.state]}:${run.id}`;

function itemOf(run: RunRecord, read: boolean | undefined): InboxItem {
  const recipient = { uid: run.creator.uid, ...(run.creator.email !== undefined ? { email: run.creator.email } : {}) };
  return {
    notification_uid: notificationUid(run),
    kind: KIND_OF[run.state] ?? 'failed',
    factory_uid: run.factoryUid ?? '',
    factory_task_uid: run.id,
    run_id: run.id,
    stage: 'IMPLEMENT',
    title: run.title,
    ...(run.statusMessage?.message ? { description: run.statusMessage.message } : {}),
    created_at: run.updatedAt,
    recipients: run.creator.type === 'user' ? [recipient] : [],
    ...(read !== undefined ? { is_read: read } : {}),
  };
}

const encodeCursor = (run: RunRecord) => base64UrlEncode(new TextEncoder().encode(JSON.stringify([run.createdAt, run.id])));
function decodeCursor(cursor: string): { value: string; id: string } {
  const bytes = base64UrlDecode(cursor);
  try {
    const value: unknown = bytes && JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    if (Array.isArray(value) && value.length === 2 && value.every((s) => typeof s === 'string')) {
      const [position, id] = value as [string, string];
      return { value: position, id };
    }
  } catch {}
  throw invalidRequest('invalid query: cursor: not a cursor of this list');
}

/**
 * `GET /factory-inbox`: newest run first. `scope=mine` (the default, a person's key only): the
 * runs the caller started, with `is_read`; `scope=team`: every such run of the team, without it.
 */
export async function listInbox(runs: RunService, p: Principal, input: Record<string, unknown>): Promise<InboxList> {
  const query = parseOrThrow(InboxListQuerySchema, input, 'query');
  const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
  if (limit < 1 || limit > MAX_LIMIT) throw invalidRequest(`invalid query: limit: must be an integer from 1 to ${MAX_LIMIT}`);
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const mine = (query.scope ?? 'mine') === 'mine';
  if (mine) requireUser(p, 'scope=mine');
  const recipient = mine ? p.uid : query.recipient_uid;
  if (mine && query.recipient_uid !== undefined && query.recipient_uid !== p.uid) return { items: [], page_info: { has_next_page: false } };
  const found = await runs.store.runs.list({
    teamUid: p.team_uid,
    filter: {
      states: NOTIFYING_STATES,
      withFactory: true,
      ...(query.factory_uid !== undefined ? { factoryUid: query.factory_uid } : {}),
      ...(recipient !== undefined ? { creatorUid: recipient } : {}),
    },
    sortBy: 'created_at',
    order: 'desc',
    limit: limit + 1,
    ...(after ? { after } : {}),
  });
  const page = found.slice(0, limit);
  const read = mine ? await runs.store.inboxReads.readOf(p.team_uid, p.uid, page.map(notificationUid)) : undefined;
  const items = page.map((run) => itemOf(run, read?.has(notificationUid(run))));
  const last = page.at(-1);
  return found.length > limit && last
    ? { items, page_info: { has_next_page: true, next_cursor: encodeCursor(last) } }
    : { items, page_info: { has_next_page: false } };
}

/**
 * `POST /factory-inbox/notifications/read` and `/unread`: one outcome per UID, in request order.
 * An unknown UID (or one of a run gone) is a successful no-op; one whose run no longer notifies,
 * or that the caller is not the recipient of, is `ok: false`. Only successful ones are marked.
 */
export async function markInbox(runs: RunService, p: Principal, input: unknown, read: boolean): Promise<InboxMarkResponse> {
  requireUser(p, 'marking notifications');
  const { notification_uids } = parseOrThrow(InboxMarkSchema, input, 'request');
  const outcomes: InboxMarkResponse['outcomes'] = [];
  const marked = new Set<string>();
  for (const uid of notification_uids) {
    const match = /^(blocked|failed):(.+)$/.exec(uid);
    const run = match ? await runs.store.runs.get(match[2] as string, p.team_uid) : undefined;
    if (!run || run.factoryUid === null) {
      outcomes.push({ notification_uid: uid, ok: true });
      continue;
    }
    const ok = notificationUid(run) === uid && run.creator.uid === p.uid && run.creator.type === 'user';
    if (ok) marked.add(uid);
    outcomes.push({ notification_uid: uid, ok });
  }
  await runs.store.inboxReads.mark(p.team_uid, p.uid, [...marked], read, isoTime(runs.clock.now()));
  return { outcomes };
}
