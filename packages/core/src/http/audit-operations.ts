import { listAudit } from '../audit/list.js';
import { AUDIT_REPEATABLE_PARAMS } from '../models/list-queries.js';
import type { Store } from '../store/store.js';
import type { OperationHandlers } from './operation.js';
import { queryObject } from './query.js';
import { jsonResponse } from './responses.js';

/** The audit log's route (docs/management-api.md, "The audit log"). */
export const auditOperations = (store: Store): OperationHandlers<'listAuditEvents'> => ({
  listAuditEvents: async ({ principal, url }) => jsonResponse(await listAudit(store, principal, queryObject(url, AUDIT_REPEATABLE_PARAMS))),
});
