/**
 * Team repositories (docs/repositories.md, "Registering repositories"): the repositories a team's
 * skills resolve against, by `<owner>/<repo>` name per team. The credential is the name of a team
 * secret, never a value. Names use the "C" collation, as in 0001, so lists order as the memory
 * store does.
 */
export const up = `
CREATE TABLE team_repositories (
  team_uid           text NOT NULL,
  name               text COLLATE "C" NOT NULL,
  url                text NOT NULL,
  default_branch     text NOT NULL,
  credential_secret  text,
  created_at         timestamptz(3) NOT NULL,
  PRIMARY KEY (team_uid, name)
);
`;
