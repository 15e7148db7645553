/**
 * A repository a team registered for its skills (docs/repositories.md, "Registering
 * repositories"). `name` is `<owner>/<repo>`, as skill specs name it; `url` is where it is cloned
 * from; `credentialSecret` names the team secret holding a read credential (the value stays
 * sealed in the secret store, opened per read).
 */
export interface RepositoryRecord {
  teamUid: string;
  name: string;
  url: string;
  defaultBranch: string;
  credentialSecret: string | null;
  createdAt: string;
}
