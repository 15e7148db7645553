import type * as v from 'valibot';
import { EnvironmentBodySchema } from '../environments/schemas.js';
import { EnvironmentListSchema, EnvironmentViewSchema } from '../environments/view.js';
import { route } from './route.js';

// The environments' routes (docs/repositories.md, "The API"), joined into the route table (table.ts).

const environment = { environmentId: 'The environment ID.' } as const;
const json = <S extends v.GenericSchema>(description: string, schema: S) => ({ description, schema });

export const ENVIRONMENT_ROUTES = {
  createEnvironment: route({
    method: 'POST',
    area: 'api',
    path: '/environments',
    auth: 'api_key',
    tag: 'environments',
    summary: 'Create an environment: repositories to clone, setup commands, variables from team secrets.',
    params: {},
    body: { schema: EnvironmentBodySchema, presence: 'required' },
    responses: { 201: json('The environment.', EnvironmentViewSchema) },
    idempotent: true,
  }),
  listEnvironments: route({
    method: 'GET',
    area: 'api',
    path: '/environments',
    auth: 'api_key',
    tag: 'environments',
    summary: "The team's environments, by name.",
    params: {},
    responses: { 200: json('The environments.', EnvironmentListSchema) },
  }),
  getEnvironment: route({
    method: 'GET',
    area: 'api',
    path: '/environments/{environmentId}',
    auth: 'api_key',
    tag: 'environments',
    summary: 'One environment.',
    params: environment,
    responses: { 200: json('The environment.', EnvironmentViewSchema) },
  }),
  replaceEnvironment: route({
    method: 'PUT',
    area: 'api',
    path: '/environments/{environmentId}',
    auth: 'api_key',
    tag: 'environments',
    summary: 'Replace an environment whole (not one a definition file defines).',
    params: environment,
    body: { schema: EnvironmentBodySchema, presence: 'required' },
    responses: { 200: json('The environment.', EnvironmentViewSchema) },
  }),
  deleteEnvironment: route({
    method: 'DELETE',
    area: 'api',
    path: '/environments/{environmentId}',
    auth: 'api_key',
    tag: 'environments',
    summary: 'Delete an environment (not one a definition file defines).',
    params: environment,
    responses: { 204: { description: 'Done; no body.', content: 'none' } },
  }),
} as const;
