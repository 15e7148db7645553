/**
 * An agent identity (docs/run-api.md, "Agent identities"): a named record of the team that the
 * published clients create with `POST /agent/identities`. A run or a factory run names one by
 * `agent_identity_uid`; agentrun checks that it is the team's and records it on the run. It holds
 * no credentials and changes nothing of how a run executes (its `base_model` and `prompt` are kept
 * and shown, not applied).
 */
export interface AgentIdentityRecord {
  uid: string;
  teamUid: string;
  name: string;
  description: string | null;
  baseModel: string | null;
  prompt: string | null;
  createdAt: string;
  updatedAt: string;
}
