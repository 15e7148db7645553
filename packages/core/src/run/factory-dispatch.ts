import * as v from 'valibot';
import type { Principal } from '../auth/principal.js';
import { notFound } from '../errors.js';
import { jsonObject } from '../models/json.js';
import { RunStateSchema } from '../models/run.js';
import { parseOrThrow } from '../models/validate.js';
import type { IdempotencyContext } from './idempotency.js';
import type { RunService } from './run-service.js';

// `POST /factory/{uid}/runs` of the published Python client (factories/runs.py `create`): work
// dispatched to a factory, as a run of that factory (docs/run-api.md, "Dispatch a run to a factory").

const text = (max: number) => v.pipe(v.string(), v.maxLength(max, `must be at most ${max} characters`));

/** types/factories/run_create_params.py. */
export const FactoryRunRequestSchema = jsonObject({
  prompt: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(100_000)),
  title: v.optional(text(500)),
  ticket_ref: v.optional(v.pipe(text(256), v.regex(/^[A-Za-z0-9._-]+:\S+$/, 'must be <source>:<id>, as linear:REMOTE-123'))),
  ticket_url: v.optional(v.pipe(text(2048), v.url('must be a URL'), v.regex(/^https?:\/\//i, 'must be an http(s) URL'))),
});

/** types/factories/run_create_response.py. */
export const FactoryRunResponseSchema = v.object({
  factory_uid: v.string(),
  foreman_agent: v.string(),
  run_id: v.string(),
  state: RunStateSchema,
  ticket_ref: v.string(),
});
export type FactoryRunResponse = v.InferOutput<typeof FactoryRunResponseSchema>;

/**
 * A run of the factory, started as `POST /agent/run` starts one (same checks, same `Idempotency-Key`
 * handling), with the factory's foreman as its `agent_identity_uid` when it has one. `ticket_ref`
 * is the caller's, or `adhoc:<run_id>` when none is given. The ticket is answered, not stored:
 * agentrun runs carry no metadata yet.
 */
export async function dispatchToFactory(
  runs: RunService,
  principal: Principal,
  factoryUid: string,
  input: unknown,
  idempotency?: IdempotencyContext,
): Promise<{ status: number; body: FactoryRunResponse; replayed: boolean }> {
  const body = parseOrThrow(FactoryRunRequestSchema, input, 'factory run request');
  const factory = await runs.store.factories.get(principal.team_uid, factoryUid);
  if (!factory) throw notFound(`factory ${factoryUid} not found`);
  const foreman = factory.foremanAgentIdentityUid;
  const request = {
    prompt: body.prompt,
    ...(body.title !== undefined ? { title: body.title } : {}),
    ...(foreman !== null ? { agent_identity_uid: foreman } : {}),
  };
  const result = await runs.create(principal, request, { factoryUid, ...(idempotency ? { idempotency } : {}) });
  const { run_id, state } = result.body;
  return {
    status: result.status,
    replayed: result.replayed,
    body: { factory_uid: factoryUid, foreman_agent: foreman ?? '', run_id, state, ticket_ref: body.ticket_ref ?? `adhoc:${run_id}` },
  };
}
