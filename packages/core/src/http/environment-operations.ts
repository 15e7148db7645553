import type { ControlService } from '../control/control-service.js';
import { ROUTES } from '../routes/table.js';
import { withKey } from './idempotency-key.js';
import type { IdempotentWrite } from './idempotent-write.js';
import type { JsonReaders } from './json-readers.js';
import type { OperationHandlers } from './operation.js';
import { jsonResponse } from './responses.js';

type EnvironmentOperation = 'createEnvironment' | 'listEnvironments' | 'getEnvironment' | 'replaceEnvironment' | 'deleteEnvironment';

/** The environments' routes (docs/repositories.md, "The API"), with the management API's body limit and idempotency. */
export function environmentOperations(
  control: ControlService,
  { readJson, requireBody }: JsonReaders,
  idempotent: IdempotentWrite,
  bodyBytes: number,
): OperationHandlers<EnvironmentOperation> {
  const body = async (request: Request, operation: 'createEnvironment' | 'replaceEnvironment') =>
    requireBody(await readJson(request, ROUTES[operation].body.schema, bodyBytes), 'request');
  return {
    createEnvironment: async (ctx) => {
      const input = await body(ctx.request, 'createEnvironment');
      // Every management POST takes an `Idempotency-Key` (docs/run-api.md, "Idempotency").
      return idempotent(ctx.principal, withKey(ctx.request, 'create environment', input).idempotency, async () => ({
        status: 201,
        body: await control.createEnvironment(ctx.principal, input),
      }));
    },
    listEnvironments: async ({ principal }) => jsonResponse(await control.listEnvironments(principal)),
    getEnvironment: async ({ principal }, { environmentId }) => jsonResponse(await control.getEnvironment(principal, environmentId)),
    replaceEnvironment: async ({ principal, request }, { environmentId }) =>
      jsonResponse(await control.replaceEnvironment(principal, environmentId, await body(request, 'replaceEnvironment'))),
    deleteEnvironment: async ({ principal }, { environmentId }) => {
      await control.deleteEnvironment(principal, environmentId);
      return new Response(null, { status: 204 });
    },
  };
}
