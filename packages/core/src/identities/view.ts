import * as v from 'valibot';
import type { AgentIdentityRecord } from './records.js';

/** An agent identity as the published clients read it (`AgentResponse`). */
export const AgentIdentityViewSchema = v.object({
  uid: v.string(),
  name: v.string(),
  /** Always true: agentrun has no plan limit on identities. */
  available: v.boolean(),
  description: v.nullable(v.string()),
  base_model: v.nullable(v.string()),
  prompt: v.nullable(v.string()),
  created_at: v.string(),
  updated_at: v.string(),
});
export type AgentIdentityView = v.InferOutput<typeof AgentIdentityViewSchema>;

/** `GET /agent/identities` (`ListAgentIdentitiesResponse`). */
export const AgentIdentityListSchema = v.object({ agents: v.array(AgentIdentityViewSchema) });

export const agentIdentityView = (a: AgentIdentityRecord): AgentIdentityView => ({
  uid: a.uid,
  name: a.name,
  available: true,
  description: a.description,
  base_model: a.baseModel,
  prompt: a.prompt,
  created_at: a.createdAt,
  updated_at: a.updatedAt,
});
