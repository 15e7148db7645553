import type { ControlService } from '../control/control-service.js';
import { listCloudEnvironments } from '../environments/client-environments.js';
import { ROUTES } from '../routes/table.js';
import { conversationRedirect } from '../run/conversation-redirect.js';
import { dispatchToFactory } from '../run/factory-dispatch.js';
import { listInbox, markInbox } from '../run/inbox.js';
import type { RunService } from '../run/run-service.js';
import { withKey } from './idempotency-key.js';
import type { JsonReaders } from './json-readers.js';
import type { OperationHandlers } from './operation.js';
import { queryObject } from './query.js';
import { jsonResponse } from './responses.js';

type PythonClientOperation =
  | 'checkConversationRedirect'
  | 'listClientFactories'
  | 'listCloudEnvironments'
  | 'listHandoffAttachments'
  | 'getClientFactory'
  | 'dispatchFactoryRun'
  | 'listInbox'
  | 'markInboxRead'
  | 'markInboxUnread';

/** The routes only the published Python client calls (routes/python-client-routes.ts; docs/run-api.md). */
export function pythonClientOperations(
  runs: RunService,
  control: ControlService,
  { readJson, requireBody }: JsonReaders,
): OperationHandlers<PythonClientOperation> {
  const marks = async (request: Request, operation: 'markInboxRead' | 'markInboxUnread') =>
    requireBody(await readJson(request, ROUTES[operation].body.schema), 'request');
  return {
    checkConversationRedirect: async (_ctx, { conversationId }) => jsonResponse(await conversationRedirect(runs.store, conversationId)),
    // The run must be the caller's team's (404 otherwise); agentrun's executions leave no hand-off snapshot.
    listHandoffAttachments: async ({ principal }, { runId }) => {
      await runs.get(principal, runId);
      return jsonResponse({ attachments: [] });
    },
    listCloudEnvironments: async ({ principal, url }) => jsonResponse(await listCloudEnvironments(runs.store, principal, queryObject(url))),
    listClientFactories: async ({ principal, url, request }) =>
      jsonResponse(await control.listClientFactories(principal, queryObject(url), request.headers.get('x-warp-team-uid'))),
    getClientFactory: async ({ principal }, { uid }) => jsonResponse(await control.getClientFactory(principal, uid)),
    dispatchFactoryRun: async ({ principal, request }, { uid }) => {
      const body = requireBody(await readJson(request, ROUTES.dispatchFactoryRun.body.schema), 'factory run request');
      const { idempotency } = withKey(request, `dispatch ${uid}`, body);
      const result = await dispatchToFactory(runs, principal, uid, body, idempotency);
      return jsonResponse(result.body, result.status, result.replayed ? { 'idempotent-replayed': 'true' } : {});
    },
    listInbox: async ({ principal, url }) => jsonResponse(await listInbox(runs, principal, queryObject(url))),
    markInboxRead: async ({ principal, request }) =>
      jsonResponse(await markInbox(runs, principal, await marks(request, 'markInboxRead'), true)),
    markInboxUnread: async ({ principal, request }) =>
      jsonResponse(await markInbox(runs, principal, await marks(request, 'markInboxUnread'), false)),
  };
}
