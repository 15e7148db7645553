import * as v from 'valibot';
import type { Principal } from '../auth/principal.js';
import { invalidRequest } from '../errors.js';
import { parseOrThrow } from '../models/validate.js';
import { base64UrlDecode, base64UrlEncode } from '../util/ids.js';
import { requireFactory } from './access.js';
import type { ControlContext } from './control-context.js';
import type { FactoryRecord } from './records.js';

// The published Python client's factories (`client.factories.list()` and `.get(uid)`,
// types/factory.py), over agentrun's own (docs/run-api.md, "Factories, as the Python client reads
// them"). The management API serves the same factories in its own shape at /factories.

/** `Factory` of the Python client: agentrun's fields, and the concepts it lacks as empty or default. */
export const ClientFactorySchema = v.object({
  uid: v.string(),
  name: v.string(),
  team_uid: v.string(),
  created_at: v.string(),
  updated_at: v.string(),
  agent_defaults: v.object({
    default_runner_uid: v.string(),
    mcp_servers: v.record(v.string(), v.unknown()),
    secrets: v.array(v.object({ name: v.string() })),
    worker_host: v.string(),
  }),
  code_forge: v.literal('NONE'),
  code_forges: v.array(v.literal('NONE')),
  credential_strategy: v.literal('EXECUTOR'),
  repositories: v.array(v.unknown()),
  scoring: v.object({}),
});
export type ClientFactory = v.InferOutput<typeof ClientFactorySchema>;

export const ClientFactoryListSchema = v.object({
  factories: v.array(ClientFactorySchema),
  page_info: v.object({ has_next_page: v.boolean(), next_cursor: v.optional(v.string()) }),
});
export type ClientFactoryList = v.InferOutput<typeof ClientFactoryListSchema>;

/** Query of `GET /factory` (types/factory_list_params.py). */
export const ClientFactoryListQuerySchema = v.object({
  cursor: v.optional(v.pipe(v.string(), v.maxLength(512))),
  limit: v.optional(v.pipe(v.string(), v.regex(/^[0-9]{1,3}$/, 'must be an integer from 1 to 100'))),
  search: v.optional(v.pipe(v.string(), v.maxLength(256))),
  query_team_uid: v.optional(v.pipe(v.string(), v.maxLength(256))),
});

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 100;

/**
 * A factory as the Python client reads it. agentrun's factories have no repositories of their own
 * (`code_forge: NONE`: a run's repositories come from its environment), no agent defaults, no
 * scoring model, no alias, avatar, description, integrations or creator: those are empty or absent.
 */
const clientFactoryView = (f: FactoryRecord): ClientFactory => ({
  uid: f.uid,
  name: f.name,
  team_uid: f.teamUid,
  created_at: f.createdAt,
  updated_at: f.updatedAt,
  agent_defaults: { default_runner_uid: '', mcp_servers: {}, secrets: [], worker_host: '' },
  code_forge: 'NONE',
  code_forges: ['NONE'],
  credential_strategy: 'EXECUTOR',
  repositories: [],
  scoring: {},
});

/** The cursor: the (created_at, uid) of the page's last factory, opaque to the client. */
const encodeCursor = (f: FactoryRecord) => base64UrlEncode(new TextEncoder().encode(JSON.stringify([f.createdAt, f.uid])));

function decodeCursor(cursor: string): [string, string] {
  const bytes = base64UrlDecode(cursor);
  try {
    const value: unknown = bytes && JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    if (Array.isArray(value) && value.length === 2 && value.every((s) => typeof s === 'string')) return value as [string, string];
  } catch {}
  throw invalidRequest('invalid query: cursor: not a cursor of this list');
}

const byPosition = (a: FactoryRecord, b: FactoryRecord) =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0;

/**
 * `GET /factory`: the caller's team's factories, oldest first, `limit` (1–100, 50 by default) at a
 * time, `search` a case-insensitive substring of the name. A caller sees only its own team: a
 * `query_team_uid` (or `X-Warp-Team-Uid` header) naming another team gets an empty page.
 */
export async function listClientFactories(
  ctx: ControlContext,
  p: Principal,
  input: Record<string, unknown>,
  teamHeader: string | null,
): Promise<ClientFactoryList> {
  const query = parseOrThrow(ClientFactoryListQuerySchema, input, 'query');
  const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
  if (limit < 1 || limit > MAX_LIMIT) throw invalidRequest(`invalid query: limit: must be an integer from 1 to ${MAX_LIMIT}`);
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const team = query.query_team_uid ?? teamHeader ?? p.team_uid;
  if (team !== p.team_uid) return { factories: [], page_info: { has_next_page: false } };
  const needle = query.search?.toLowerCase();
  const matching = (await ctx.store.factories.list(p.team_uid))
    .filter((f) => needle === undefined || f.name.toLowerCase().includes(needle))
    .filter((f) => after === undefined || f.createdAt > after[0] || (f.createdAt === after[0] && f.uid > after[1]))
    .sort(byPosition);
  const page = matching.slice(0, limit);
  const last = page.at(-1);
  return matching.length > limit && last
    ? { factories: page.map(clientFactoryView), page_info: { has_next_page: true, next_cursor: encodeCursor(last) } }
    : { factories: page.map(clientFactoryView), page_info: { has_next_page: false } };
}

/** `GET /factory/{uid}`: one factory of the caller's team, 404 otherwise. */
export async function getClientFactory(ctx: ControlContext, p: Principal, factoryUid: string): Promise<ClientFactory> {
  return clientFactoryView(await requireFactory(ctx, p, factoryUid));
}
