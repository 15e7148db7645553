import * as v from 'valibot';
import type { Principal } from '../auth/principal.js';
import { RunStateSchema } from '../models/run.js';
import { parseOrThrow } from '../models/validate.js';
import type { Store } from '../store/store.js';
import type { EnvironmentRecord } from './records.js';

// `GET /agent/environments` of the published Python client (`agent.list_environments`,
// types/cloud_environment.py): the team's environments (docs/repositories.md, "Environments") in
// that client's `CloudEnvironment` shape (docs/run-api.md, "Environments, as the Python client reads them").

const LastTaskSchema = v.object({
  id: v.string(),
  title: v.string(),
  state: RunStateSchema,
  created_at: v.string(),
  updated_at: v.string(),
  started_at: v.optional(v.string()),
});

const CloudEnvironmentSchema = v.object({
  uid: v.string(),
  config: v.object({
    name: v.string(),
    setup_commands: v.array(v.string()),
    github_repos: v.array(v.object({ owner: v.string(), repo: v.string() })),
  }),
  last_updated: v.string(),
  setup_failed: v.boolean(),
  scope: v.object({ type: v.literal('Team'), uid: v.string() }),
  last_task_created: v.optional(LastTaskSchema),
});
type CloudEnvironment = v.InferOutput<typeof CloudEnvironmentSchema>;

export const CloudEnvironmentListSchema = v.object({ environments: v.array(CloudEnvironmentSchema) });
type CloudEnvironmentList = v.InferOutput<typeof CloudEnvironmentListSchema>;

/** types/agent_list_environments_params.py. */
export const CloudEnvironmentListQuerySchema = v.object({
  sort_by: v.optional(v.picklist(['name', 'last_updated'], 'must be name or last_updated')),
});

/** A registered repository's `<owner>/<repo>` name; clone URLs are not GitHub repositories of the team. */
const OWNER_REPO = /^([^/\s:]+)\/([^/\s:]+)$/;

async function cloudEnvironment(store: Store, e: EnvironmentRecord): Promise<CloudEnvironment> {
  const [last] = await store.runs.list({
    teamUid: e.teamUid,
    filter: { environmentId: e.id },
    sortBy: 'created_at',
    order: 'desc',
    limit: 1,
  });
  const github_repos = e.repositories.flatMap((r) => {
    const m = OWNER_REPO.exec(r.repository);
    return m ? [{ owner: m[1] as string, repo: m[2] as string }] : [];
  });
  return {
    uid: e.id,
    config: { name: e.name, setup_commands: [...e.setup], github_repos },
    last_updated: e.updatedAt,
    // The newest run ended before it started: its workspace setup failed.
    setup_failed: last !== undefined && (last.state === 'FAILED' || last.state === 'ERROR') && last.startedAt === null,
    scope: { type: 'Team', uid: e.teamUid },
    ...(last
      ? {
          last_task_created: {
            id: last.id,
            title: last.title,
            state: last.state,
            created_at: last.createdAt,
            updated_at: last.updatedAt,
            ...(last.startedAt !== null ? { started_at: last.startedAt } : {}),
          },
        }
      : {}),
  };
}

/** The team's environments, most recently updated first (`sort_by=last_updated`, the default) or by name. */
export async function listCloudEnvironments(store: Store, p: Principal, input: Record<string, unknown>): Promise<CloudEnvironmentList> {
  const { sort_by = 'last_updated' } = parseOrThrow(CloudEnvironmentListQuerySchema, input, 'query');
  const records = await store.environments.list(p.team_uid);
  const key = (e: EnvironmentRecord) => (sort_by === 'name' ? e.name : e.updatedAt);
  records.sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    const order = x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    return sort_by === 'name' ? order : -order;
  });
  return { environments: await Promise.all(records.map((e) => cloudEnvironment(store, e))) };
}
