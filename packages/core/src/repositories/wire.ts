import * as v from 'valibot';
import type { RepositoryRecord } from './records.js';

/** A registered repository as the management API shows it (docs/management-api.md, "Repositories"). */
export const RepositoryViewSchema = v.object({
  name: v.string(),
  url: v.string(),
  default_branch: v.string(),
  credential_secret: v.nullable(v.string()),
  created_at: v.string(),
});
export type RepositoryView = v.InferOutput<typeof RepositoryViewSchema>;

export const RepositoryListSchema = v.object({ repositories: v.array(RepositoryViewSchema) });

export const repositoryView = (r: RepositoryRecord): RepositoryView => ({
  name: r.name,
  url: r.url,
  default_branch: r.defaultBranch,
  credential_secret: r.credentialSecret,
  created_at: r.createdAt,
});

/**
 * `GET /agent`'s answer, typed as the published clients type it (`AgentListResponse`): one agent
 * per skill name, one variant per SKILL.md of that name.
 */
const VariantSchema = v.object({
  id: v.string(),
  base_prompt: v.string(),
  description: v.string(),
  environments: v.array(v.object({ name: v.string(), uid: v.string() })),
  source: v.object({ owner: v.string(), name: v.string(), skill_path: v.string() }),
  last_run_timestamp: v.optional(v.nullable(v.string())),
  error: v.optional(v.string()),
});
export type AgentVariant = v.InferOutput<typeof VariantSchema>;

const AgentSkillListingSchema = v.object({ name: v.string(), variants: v.array(VariantSchema) });
export type AgentSkillListing = v.InferOutput<typeof AgentSkillListingSchema>;

export const AgentListSchema = v.object({ agents: v.array(AgentSkillListingSchema) });
