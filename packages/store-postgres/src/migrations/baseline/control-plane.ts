/**
 * The control plane: factories, team secrets, webhooks, automations, the definition sets applied
 * to a factory, environments, team repositories, factories from a repository, agent identities.
 *
 * No foreign keys between these tables but a factory source's applies: a webhook or automation
 * names its factory and a webhook names its secret, but core decides what must exist (and a secret
 * may be replaced or deleted while a webhook still names it). Ordered text ids and names use the
 * "C" collation, so lists order (and ties on `created_at` break) in byte order, as in core's
 * reference semantics.
 */
export const up = `
CREATE TABLE factories (
  uid                         text COLLATE "C" PRIMARY KEY,
  team_uid                    text NOT NULL,
  name                        text NOT NULL,
  foreman_agent_identity_uid  text,
  created_at                  timestamptz(3) NOT NULL,
  updated_at                  timestamptz(3) NOT NULL
);
-- A team's factories, oldest first.
CREATE INDEX factories_team_created ON factories (team_uid, created_at, uid);
-- An agent identity is the foreman of at most one factory per team: the index both enforces that
-- (the store reports a create it refuses) and serves findByForeman.
CREATE UNIQUE INDEX factories_team_foreman ON factories (team_uid, foreman_agent_identity_uid)
  WHERE foreman_agent_identity_uid IS NOT NULL;

-- Values are sealed by core before they reach the store: there is no column for plaintext.
CREATE TABLE team_secrets (
  team_uid    text NOT NULL,
  name        text COLLATE "C" NOT NULL,
  ciphertext  text NOT NULL,
  created_at  timestamptz(3) NOT NULL,
  updated_at  timestamptz(3) NOT NULL,
  PRIMARY KEY (team_uid, name) -- also lists a team's secrets by name, in byte order
);

CREATE TABLE webhooks (
  uid                 text COLLATE "C" PRIMARY KEY,
  team_uid            text NOT NULL,
  factory_uid         text NOT NULL,
  name                text NOT NULL,
  auth_mode           text NOT NULL CHECK (auth_mode IN ('token','url_token','signature')),
  signature_scheme    text,
  secret_name         text NOT NULL,
  delivery_id_header  text,
  enabled             boolean NOT NULL,
  created_at          timestamptz(3) NOT NULL,
  updated_at          timestamptz(3) NOT NULL,
  deleted_at          timestamptz(3)
);
-- A factory's live webhooks, oldest first; also the count a create checks against the limit.
-- Deleted webhooks stay (the ingress answers 404 for them) but are never listed or counted.
CREATE INDEX webhooks_factory_live ON webhooks (factory_uid, created_at, uid) WHERE deleted_at IS NULL;

CREATE TABLE automations (
  id             text COLLATE "C" PRIMARY KEY,
  team_uid       text NOT NULL,
  factory_uid    text NOT NULL,
  name           text NOT NULL,
  prompt         text NOT NULL,
  enabled        boolean NOT NULL,
  config         jsonb,
  triggers       jsonb NOT NULL,
  created_at     timestamptz(3) NOT NULL,
  updated_at     timestamptz(3) NOT NULL,
  -- The triggers as the user wrote them, which reads return: jsonb keeps object keys sorted, so a
  -- filter read back from triggers would show another key order, and Test filter would name
  -- another "first failing path" than on the memory store (docs/filters.md). NULL: read triggers.
  triggers_text  text
);
-- A factory's automations, oldest first.
CREATE INDEX automations_factory_created ON automations (team_uid, factory_uid, created_at, id);
-- The ingress: the enabled automations whose triggers select a webhook, by containment:
--   WHERE enabled AND triggers @> '[{"provider":"webhook","filter":{"webhook_ids":["<uid>"]}}]'
-- jsonb_path_ops indexes each path-and-value of the triggers, and containment is what it answers.
-- It stays in step with the JSON it indexes; a side table of (webhook_uid, automation_id) would
-- need writing in the same transaction as every create, replace and delete.
CREATE INDEX automations_triggers ON automations USING gin (triggers jsonb_path_ops) WHERE enabled;

-- Per factory, what the last apply of its definition files left (docs/definitions.md), and the
-- version every apply checks and bumps in the transaction that writes it, so two concurrent
-- applies cannot both write.
CREATE TABLE definition_sets (
  team_uid     text NOT NULL,
  factory_uid  text COLLATE "C" NOT NULL,
  version      integer NOT NULL CHECK (version > 0),
  applied_at   timestamptz(3) NOT NULL,
  -- { webhooks: [{ name, uid, secretName, secretUpdatedAt }], automations: [{ name, id }] }
  state        jsonb NOT NULL,
  PRIMARY KEY (team_uid, factory_uid)
);

-- The repositories a team's skills resolve against, by owner/repo name (docs/repositories.md).
-- The credential is the name of a team secret, never a value.
CREATE TABLE team_repositories (
  team_uid           text NOT NULL,
  name               text COLLATE "C" NOT NULL,
  url                text NOT NULL,
  default_branch     text NOT NULL,
  credential_secret  text,
  created_at         timestamptz(3) NOT NULL,
  PRIMARY KEY (team_uid, name)
);

-- What a run's workspace is prepared from, team-wide, named by a run's environment_id; names are
-- unique in a team. factory_uid: the factory whose definition files define it (NULL: the API's).
CREATE TABLE environments (
  team_uid               text NOT NULL,
  id                     text NOT NULL,
  factory_uid            text,
  name                   text COLLATE "C" NOT NULL,
  repositories           jsonb NOT NULL,
  setup                  jsonb NOT NULL,
  variables              jsonb NOT NULL,
  setup_timeout_seconds  integer NOT NULL,
  created_at             timestamptz(3) NOT NULL,
  updated_at             timestamptz(3) NOT NULL,
  PRIMARY KEY (team_uid, id),
  CONSTRAINT environments_team_name UNIQUE (team_uid, name)
);

-- A factory's source (a registered repository, a branch, a directory, how push notifications are
-- verified) and the commits applied from it (docs/repositories.md, "Factories from a
-- repository"). The primary key (factory_uid, commit) applies each commit once across processes:
-- a claim inserts the row, under a lock of the source's row.
CREATE TABLE factory_sources (
  team_uid      text NOT NULL,
  factory_uid   text COLLATE "C" NOT NULL,
  repository    text NOT NULL,
  branch        text NOT NULL,
  directory     text NOT NULL,
  push_scheme   text,
  push_secret   text,
  created_at    timestamptz(3) NOT NULL,
  updated_at    timestamptz(3) NOT NULL,
  PRIMARY KEY (factory_uid),
  UNIQUE (team_uid, factory_uid)
);

CREATE TABLE factory_source_applies (
  id            text COLLATE "C" NOT NULL,
  team_uid      text NOT NULL,
  factory_uid   text NOT NULL REFERENCES factory_sources (factory_uid) ON DELETE CASCADE,
  commit        text NOT NULL,
  triggered_by  text NOT NULL,
  status        text NOT NULL,
  errors        jsonb NOT NULL,
  version       integer,
  started_at    timestamptz(3) NOT NULL,
  finished_at   timestamptz(3),
  PRIMARY KEY (factory_uid, commit),
  UNIQUE (id)
);
CREATE INDEX factory_source_applies_newest ON factory_source_applies (factory_uid, started_at DESC, id DESC);

-- Named records of a team that runs may name by agent_identity_uid (docs/run-api.md, "Agent
-- identities"), listed oldest first, then by uid.
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
