/**
 * Factories from a repository (docs/repositories.md, "Factories from a repository"): a factory's
 * source (a registered repository, a branch, a directory, how push notifications are verified),
 * and the commits applied from it. The primary key (factory_uid, commit) is what applies each
 * commit once across processes: a claim inserts the row, under a lock of the source's row.
 */
export const up = `
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
`;
