import { openApiDocument } from '../routes/openapi.js';
import { ROUTES } from '../routes/table.js';
import { mountedBase } from './mount-path.js';
import type { OperationHandlers } from './operation.js';
import { jsonResponse } from './responses.js';

/** Routes about the API itself: its OpenAPI document, with this server's base URL. */
export function metaOperations(): OperationHandlers<'getOpenApi'> {
  // Built on first use, then only `servers` changes per request (the mount point and origin).
  let document: ReturnType<typeof openApiDocument> | undefined;
  return {
    getOpenApi: async ({ request, url }) => {
      document ??= openApiDocument(ROUTES);
      return jsonResponse({ ...document, servers: [{ url: mountedBase(request, url) }] });
    },
  };
}
