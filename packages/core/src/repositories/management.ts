import { auditEvent } from '../audit/event.js';
import type { Principal } from '../auth/principal.js';
import { requireManage } from '../control/access.js';
import { conflict, invalidRequest, notFound } from '../errors.js';
import { invalidWithErrors, parseOrThrow } from '../models/validate.js';
import type { SkillCatalog } from '../skills/skill-catalog.js';
import { teamSources } from '../sources/team-sources.js';
import type { Store } from '../store/store.js';
import { type Clock, isoTime } from '../util/clock.js';
import type { RepositoryRecord } from './records.js';
import { CreateRepositorySchema } from './schemas.js';
import { repositoryView } from './wire.js';

/**
 * The team repositories routes (docs/management-api.md, "Repositories"): any key of the team
 * reads them; a change needs `manage_factory`. The credential is a team secret's name, which must
 * exist when the repository is registered. The URL must be one the host's reader reads: never a
 * path into its cache, nor a path on the server unless the host allows those (docs/repositories.md, "URLs").
 */
export async function createRepository(skills: SkillCatalog, clock: Clock, p: Principal, input: unknown) {
  requireManage(p);
  const { store } = skills;
  const body = parseOrThrow(CreateRepositorySchema, input, 'repository');
  const refusal = await skills.urlRefusal(body.url);
  if (refusal !== undefined) throw invalidWithErrors([{ path: 'url', detail: refusal }], 'repository');
  const credentialSecret = body.credential_secret ?? null;
  if (credentialSecret !== null && !(await store.secrets.get(p.team_uid, credentialSecret))) {
    throw invalidRequest(`invalid repository: credential_secret: no team secret ${credentialSecret}`);
  }
  const record: RepositoryRecord = {
    teamUid: p.team_uid,
    name: body.name,
    url: body.url,
    defaultBranch: body.default_branch,
    credentialSecret,
    createdAt: isoTime(clock.now()),
  };
  const audit = auditEvent(p, 'repository.created', { type: 'repository', id: record.name }, record.createdAt, {
    default_branch: record.defaultBranch,
    credential_secret: record.credentialSecret,
  });
  if (!(await store.repositories.create(record, audit))) throw conflict(`repository ${body.name} is already registered for this team`);
  return repositoryView(record);
}

export async function listRepositories(store: Store, p: Principal) {
  return { repositories: (await store.repositories.list(p.team_uid)).map(repositoryView) };
}

export async function getRepository(store: Store, p: Principal, name: string) {
  const found = await store.repositories.get(p.team_uid, name);
  if (!found) throw notFound(`repository ${name} not found`);
  return repositoryView(found);
}

export async function deleteRepository(store: Store, clock: Clock, p: Principal, name: string): Promise<void> {
  requireManage(p);
  // A factory applied from it would stop syncing without a word (docs/repositories.md).
  const user = (await teamSources(store, p.team_uid)).find((s) => s.repository === name);
  if (user) throw conflict(`repository ${name} is the source of factory ${user.factoryUid}; clear that source first`);
  const audit = auditEvent(p, 'repository.deleted', { type: 'repository', id: name }, isoTime(clock.now()));
  if (!(await store.repositories.delete(p.team_uid, name, audit))) throw notFound(`repository ${name} not found`);
}
