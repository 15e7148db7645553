import * as v from 'valibot';
import { ListSourceAppliesQuerySchema } from '../models/list-queries.js';
import { PutSourceSchema } from '../sources/schemas.js';
import { SourceAppliesSchema, SourceSyncResultSchema, SourceViewSchema } from '../sources/wire.js';
import { route } from './route.js';

// A factory's source repository (docs/repositories.md, "Factories from a repository"), joined into
// the route table (table.ts).

const factory = { factoryUid: 'The factory UID.' } as const;
const json = <S extends v.GenericSchema>(description: string, schema: S) => ({ description, schema });

export const SOURCE_ROUTES = {
  putFactorySource: route({
    method: 'PUT',
    area: 'api',
    path: '/factories/{factoryUid}/source',
    auth: 'api_key',
    tag: 'factories',
    summary: "Set the factory's source: a registered repository, its production branch and the definitions directory.",
    params: factory,
    body: { schema: PutSourceSchema, presence: 'required' },
    responses: { 200: json('Replaced.', SourceViewSchema), 201: json('Set.', SourceViewSchema) },
  }),
  getFactorySource: route({
    method: 'GET',
    area: 'api',
    path: '/factories/{factoryUid}/source',
    auth: 'api_key',
    tag: 'factories',
    summary: "The factory's source, its last apply and its last applied commit.",
    params: factory,
    responses: { 200: json('The source.', SourceViewSchema) },
  }),
  deleteFactorySource: route({
    method: 'DELETE',
    area: 'api',
    path: '/factories/{factoryUid}/source',
    auth: 'api_key',
    tag: 'factories',
    summary: 'Clear the source: the factory keeps what was applied, and takes `agentrun apply` again.',
    params: factory,
    responses: { 204: { description: 'Done; no body.', content: 'none' } },
  }),
  listFactorySourceApplies: route({
    method: 'GET',
    area: 'api',
    path: '/factories/{factoryUid}/source/applies',
    auth: 'api_key',
    tag: 'factories',
    summary: "The commits applied from the factory's source, newest first, in keyset pages.",
    params: factory,
    query: ListSourceAppliesQuerySchema,
    responses: { 200: json('One page of applies.', SourceAppliesSchema) },
  }),
  syncFactorySource: route({
    method: 'POST',
    area: 'api',
    path: '/factories/{factoryUid}/source/sync',
    auth: 'api_key',
    tag: 'factories',
    summary: "Fetch the source's branch now and apply its head commit, unless that commit has an apply already.",
    params: factory,
    body: { schema: v.strictObject({}), presence: 'optional' },
    responses: { 200: json('What the sync found and did.', SourceSyncResultSchema) },
  }),
  pushFactorySource: route({
    method: 'POST',
    area: 'webhooks',
    path: '/sources/{factoryUid}',
    auth: 'webhook',
    tag: 'ingress',
    summary: "A push notification for a factory's source (GitHub push, GitLab push hook, Standard Webhooks): verified, it wakes a sync.",
    params: factory,
    body: { schema: v.unknown(), presence: 'required' },
    responses: {
      202: json(
        'Verified: a sync was started (or the push was to another branch).',
        v.object({ sync: v.picklist(['started', 'ignored']) }),
      ),
    },
  }),
} as const;
