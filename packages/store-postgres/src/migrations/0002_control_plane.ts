/**
 * The control plane: factories, team secrets, webhooks and automations.
 *
 * No foreign keys between these tables: a webhook or automation names its factory and a webhook
 * names its secret, but core decides what must exist (and a secret may be replaced or deleted
 * while a webhook still names it). Ordered text ids use the "C" collation, as in 0001, so ties on
 * `created_at` break in byte order, as in core's reference semantics.
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
-- findByForeman answers with one factory, so an agent identity is the foreman of at most one
-- factory per team; the index both enforces that and serves the lookup.
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
  id           text COLLATE "C" PRIMARY KEY,
  team_uid     text NOT NULL,
  factory_uid  text NOT NULL,
  name         text NOT NULL,
  prompt       text NOT NULL,
  enabled      boolean NOT NULL,
  config       jsonb,
  triggers     jsonb NOT NULL,
  created_at   timestamptz(3) NOT NULL,
  updated_at   timestamptz(3) NOT NULL
);
-- A factory's automations, oldest first.
CREATE INDEX automations_factory_created ON automations (team_uid, factory_uid, created_at, id);
-- The ingress: the enabled automations whose triggers select a webhook, by containment:
--   WHERE enabled AND triggers @> '[{"provider":"webhook","filter":{"webhook_ids":["<uid>"]}}]'
-- jsonb_path_ops indexes each path-and-value of the triggers, and containment is what it answers.
-- It stays in step with the JSON it indexes; a side table of (webhook_uid, automation_id) would
-- need writing in the same transaction as every create, replace and delete.
CREATE INDEX automations_triggers ON automations USING gin (triggers jsonb_path_ops) WHERE enabled;
`;
