import * as v from 'valibot';
import { jsonObject } from '../models/json.js';

// The bodies of the agent identities' create and update (docs/run-api.md, "Agent identities"), as
// the published Python client sends them. Fields of the client agentrun does not keep (secrets,
// MCP servers, memory, ...) are refused by name rather than dropped.

const NameSchema = v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200));
const text = (max: number) => v.pipe(v.string(), v.maxLength(max));

const optionalFields = {
  description: v.optional(v.nullable(text(2000))),
  base_model: v.optional(v.nullable(text(200))),
  prompt: v.optional(v.nullable(text(100_000))),
};

/** `POST /agent/identities`. */
export const CreateAgentIdentitySchema = jsonObject({ name: NameSchema, ...optionalFields });

/** `PUT /agent/identities/{uid}`: omitted or `null` leaves a field unchanged; `""` clears an optional one. */
export const UpdateAgentIdentitySchema = jsonObject({ name: v.optional(NameSchema), ...optionalFields });

/**
 * `GET /agent/identities?factory_uid=…`: the client's filter to identities linked to a factory.
 * agentrun links no identity to a factory, so with it the list is empty.
 */
export const ListAgentIdentitiesQuerySchema = v.object({ factory_uid: v.optional(v.pipe(v.string(), v.minLength(1))) });
