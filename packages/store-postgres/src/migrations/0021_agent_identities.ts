/**
 * Agent identities (docs/run-api.md, "Agent identities"): named records of a team that runs may
 * name by `agent_identity_uid`. Listed oldest first, then by uid ("C" collation, as the memory
 * store orders).
 */
export const up = `
CREATE TABLE agent_identities (
  team_uid     text NOT NULL,
  uid          text COLLATE "C" NOT NULL,
  name         text NOT NULL,
  description  text,
  base_model   text,
  prompt       text,
  created_at   timestamptz(3) NOT NULL,
  updated_at   timestamptz(3) NOT NULL,
  PRIMARY KEY (team_uid, uid)
);
`;
