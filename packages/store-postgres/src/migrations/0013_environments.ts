/**
 * Environments (docs/repositories.md, "Environments"): what a run's workspace is prepared from,
 * team-wide, named by a run's `environment_id`. Names are unique in a team ("C" collation, so the
 * list orders as the memory store's). `factory_uid` is the factory whose definition files define
 * it; null when made through the API.
 */
export const up = `
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
`;
