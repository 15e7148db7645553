import type * as v from 'valibot';
import { CreateAgentIdentitySchema, ListAgentIdentitiesQuerySchema, UpdateAgentIdentitySchema } from '../identities/schemas.js';
import { AgentIdentityListSchema, AgentIdentityViewSchema } from '../identities/view.js';
import { route } from './route.js';

// The agent identities' routes (docs/run-api.md, "Agent identities"), at the paths the published
// Python client calls, joined into the route table (table.ts).

const identity = { identityUid: 'The agent identity UID.' } as const;
const json = <S extends v.GenericSchema>(description: string, schema: S) => ({ description, schema });

export const IDENTITY_ROUTES = {
  createAgentIdentity: route({
    method: 'POST',
    area: 'api',
    path: '/agent/identities',
    auth: 'api_key',
    tag: 'agent identities',
    summary: 'Create an agent identity: a named record of the team that runs may name by agent_identity_uid.',
    params: {},
    body: { schema: CreateAgentIdentitySchema, presence: 'required' },
    responses: { 201: json('The agent identity.', AgentIdentityViewSchema) },
    idempotent: true,
  }),
  listAgentIdentities: route({
    method: 'GET',
    area: 'api',
    path: '/agent/identities',
    auth: 'api_key',
    tag: 'agent identities',
    summary: "The team's agent identities, oldest first; none with factory_uid (agentrun links no identity to a factory).",
    params: {},
    query: ListAgentIdentitiesQuerySchema,
    responses: { 200: json('The agent identities.', AgentIdentityListSchema) },
  }),
  updateAgentIdentity: route({
    method: 'PUT',
    area: 'api',
    path: '/agent/identities/{identityUid}',
    auth: 'api_key',
    tag: 'agent identities',
    summary: 'Change an agent identity: omitted or null fields stay as they are; an empty string clears an optional one.',
    params: identity,
    body: { schema: UpdateAgentIdentitySchema, presence: 'required' },
    responses: { 200: json('The agent identity.', AgentIdentityViewSchema) },
  }),
  deleteAgentIdentity: route({
    method: 'DELETE',
    area: 'api',
    path: '/agent/identities/{identityUid}',
    auth: 'api_key',
    tag: 'agent identities',
    summary: 'Delete an agent identity (runs that named it keep its uid).',
    params: identity,
    responses: { 204: { description: 'Done; no body.', content: 'none' } },
  }),
} as const;
