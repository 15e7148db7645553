import type { ControlService } from '../control/control-service.js';
import { ROUTES } from '../routes/table.js';
import { withKey } from './idempotency-key.js';
import type { IdempotentWrite } from './idempotent-write.js';
import type { JsonReaders } from './json-readers.js';
import type { OperationHandlers } from './operation.js';
import { queryObject } from './query.js';
import { jsonResponse } from './responses.js';

type IdentityOperation = 'createAgentIdentity' | 'listAgentIdentities' | 'updateAgentIdentity' | 'deleteAgentIdentity';

/** The agent identities' routes (docs/run-api.md, "Agent identities"), with the management API's body limit and idempotency. */
export function identityOperations(
  control: ControlService,
  { readJson, requireBody }: JsonReaders,
  idempotent: IdempotentWrite,
  bodyBytes: number,
): OperationHandlers<IdentityOperation> {
  const body = async (request: Request, operation: 'createAgentIdentity' | 'updateAgentIdentity') =>
    requireBody(await readJson(request, ROUTES[operation].body.schema, bodyBytes), 'request');
  return {
    createAgentIdentity: async (ctx) => {
      const input = await body(ctx.request, 'createAgentIdentity');
      // Every management POST takes an `Idempotency-Key` (docs/run-api.md, "Idempotency").
      return idempotent(ctx.principal, withKey(ctx.request, 'create agent identity', input).idempotency, async () => ({
        status: 201,
        body: await control.createAgentIdentity(ctx.principal, input),
      }));
    },
    listAgentIdentities: async ({ principal, url }) => jsonResponse(await control.listAgentIdentities(principal, queryObject(url))),
    updateAgentIdentity: async ({ principal, request }, { identityUid }) =>
      jsonResponse(await control.updateAgentIdentity(principal, identityUid, await body(request, 'updateAgentIdentity'))),
    deleteAgentIdentity: async ({ principal }, { identityUid }) => {
      await control.deleteAgentIdentity(principal, identityUid);
      return new Response(null, { status: 204 });
    },
  };
}
