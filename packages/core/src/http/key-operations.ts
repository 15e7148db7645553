import type { ApiKeyService } from '../keys/key-service.js';
import { ROUTES } from '../routes/table.js';
import type { JsonReaders } from './json-readers.js';
import type { OperationHandlers } from './operation.js';
import { jsonResponse } from './responses.js';

/**
 * The API-key routes (docs/management-api.md, "API keys"). Creating a key takes no
 * `Idempotency-Key`: a replay would have to keep the key to show it again, and it is shown once.
 */
export function keyOperations(
  keys: ApiKeyService,
  { readJson, requireBody }: JsonReaders,
  bodyBytes: number,
): OperationHandlers<'createApiKey' | 'listApiKeys' | 'revokeApiKey'> {
  return {
    createApiKey: async ({ principal, request }) =>
      jsonResponse(
        await keys.create(principal, requireBody(await readJson(request, ROUTES.createApiKey.body.schema, bodyBytes), 'request')),
        201,
      ),
    listApiKeys: async ({ principal }) => jsonResponse(await keys.list(principal)),
    revokeApiKey: async ({ principal }, { keyId }) => {
      await keys.revoke(principal, keyId);
      return new Response(null, { status: 204 });
    },
  };
}
