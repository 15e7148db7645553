import { createRepository, deleteRepository, getRepository, listRepositories } from '../repositories/management.js';
import { ROUTES } from '../routes/table.js';
import { listAgents } from '../skills/list-agents.js';
import type { SkillCatalog } from '../skills/skill-catalog.js';
import type { Clock } from '../util/clock.js';
import { withKey } from './idempotency-key.js';
import type { IdempotentWrite } from './idempotent-write.js';
import type { JsonReaders } from './json-readers.js';
import type { OperationHandlers } from './operation.js';
import { queryObject } from './query.js';
import { jsonResponse } from './responses.js';

type RepositoryOperation = 'createRepository' | 'listRepositories' | 'getRepository' | 'deleteRepository' | 'listAgents';

/** The team repositories routes and `GET /agent` (docs/management-api.md, "Repositories"; docs/run-api.md, "List agents"). */
export function repositoryOperations(
  skills: SkillCatalog,
  clock: Clock,
  { readJson, requireBody }: JsonReaders,
  idempotent: IdempotentWrite,
  bodyBytes: number,
): OperationHandlers<RepositoryOperation> {
  const { store } = skills;
  const name = (p: { owner: string; repo: string }) => `${p.owner}/${p.repo}`;
  return {
    createRepository: async ({ principal, request }) => {
      const body = requireBody(await readJson(request, ROUTES.createRepository.body.schema, bodyBytes), 'request');
      return idempotent(principal, withKey(request, 'create repository', body).idempotency, async () => ({
        status: 201,
        body: await createRepository(skills, clock, principal, body),
      }));
    },
    listRepositories: async ({ principal }) => jsonResponse(await listRepositories(store, principal)),
    getRepository: async ({ principal }, params) => jsonResponse(await getRepository(store, principal, name(params))),
    deleteRepository: async ({ principal }, params) => {
      await deleteRepository(store, clock, principal, name(params));
      return new Response(null, { status: 204 });
    },
    listAgents: async ({ principal, url }) => jsonResponse(await listAgents(skills, principal, queryObject(url))),
  };
}
