import * as v from 'valibot';
import { ClientFactoryListQuerySchema, ClientFactoryListSchema, ClientFactorySchema } from '../control/client-factories.js';
import { CloudEnvironmentListQuerySchema, CloudEnvironmentListSchema } from '../environments/client-environments.js';
import { ConversationRedirectResponseSchema } from '../models/run.js';
import { FactoryRunRequestSchema, FactoryRunResponseSchema } from '../run/factory-dispatch.js';
import { InboxListQuerySchema, InboxListSchema, InboxMarkResponseSchema, InboxMarkSchema } from '../run/inbox.js';
import { route } from './route.js';

// Routes at the paths only the published Python client calls (docs/run-api.md), joined into the
// route table (table.ts): the public conversation redirect, factories in that client's shape, and
// its factory inbox.

const json = <S extends v.GenericSchema>(description: string, schema: S) => ({ description, schema });
const uid = { uid: 'The factory UID.' } as const;

export const PYTHON_CLIENT_ROUTES = {
  checkConversationRedirect: route({
    method: 'GET',
    area: 'api',
    path: '/agent/conversations/{conversationId}/redirect',
    auth: 'none',
    tag: 'runs',
    summary:
      "Public: the `session_id` of a conversation's live run, or `{}`. Answered only for a conversation agentrun started (named by its first run's ID); `{}` for a name a caller chose, an unknown one, or a finished run.",
    params: { conversationId: "The conversation ID (a run's `conversation_id`)." },
    responses: { 200: json('The session to redirect to, or nothing.', ConversationRedirectResponseSchema) },
  }),
  listHandoffAttachments: route({
    method: 'GET',
    area: 'api',
    path: '/agent/runs/{runId}/handoff/attachments',
    auth: 'api_key',
    tag: 'runs',
    summary:
      "The hand-off snapshot files of a run's latest ended execution: always empty, as agentrun's executions upload none (a run's own files are its attachments and artifacts).",
    params: { runId: 'The run ID.' },
    responses: {
      200: json(
        'No snapshot files.',
        v.object({
          attachments: v.array(
            v.object({ attachment_id: v.string(), download_url: v.string(), filename: v.string(), mime_type: v.optional(v.string()) }),
          ),
        }),
      ),
    },
  }),
  listCloudEnvironments: route({
    method: 'GET',
    area: 'api',
    path: '/agent/environments',
    auth: 'api_key',
    tag: 'environments',
    summary:
      "The team's environments in the Python client's `CloudEnvironment` shape, with each one's newest run; most recently updated first, or `sort_by=name`.",
    params: {},
    query: CloudEnvironmentListQuerySchema,
    responses: { 200: json('The environments.', CloudEnvironmentListSchema) },
  }),
  listClientFactories: route({
    method: 'GET',
    area: 'api',
    path: '/factory',
    auth: 'api_key',
    tag: 'factories',
    summary:
      "The team's factories in the Python client's `Factory` shape, oldest first, in pages (`limit` 1–100, 50 by default; `search` a case-insensitive substring of the name).",
    params: {},
    query: ClientFactoryListQuerySchema,
    responses: { 200: json('One page of factories.', ClientFactoryListSchema) },
  }),
  getClientFactory: route({
    method: 'GET',
    area: 'api',
    path: '/factory/{uid}',
    auth: 'api_key',
    tag: 'factories',
    summary: "One factory in the Python client's `Factory` shape.",
    params: uid,
    responses: { 200: json('The factory.', ClientFactorySchema) },
  }),
  dispatchFactoryRun: route({
    method: 'POST',
    area: 'api',
    path: '/factory/{uid}/runs',
    auth: 'api_key',
    tag: 'factories',
    summary:
      "Dispatch a run to a factory: a run of the factory, with its foreman as the run's agent identity; `ticket_ref` (`<source>:<id>`) answered, or `adhoc:<run_id>`.",
    params: uid,
    body: { schema: FactoryRunRequestSchema, presence: 'required' },
    responses: { 200: json('The dispatched run.', FactoryRunResponseSchema) },
    idempotent: true,
  }),
  listInbox: route({
    method: 'GET',
    area: 'api',
    path: '/factory-inbox',
    auth: 'api_key',
    tag: 'factories',
    summary:
      "The factory inbox (first version): runs of the team's factories that wait on a person (`blocked`) or failed (`failed`), newest first. `scope=mine` (default; a person's key): the caller's runs, with `is_read`; `scope=team`: all.",
    params: {},
    query: InboxListQuerySchema,
    responses: { 200: json('One page of notifications.', InboxListSchema) },
  }),
  markInboxRead: route({
    method: 'POST',
    area: 'api',
    path: '/factory-inbox/notifications/read',
    auth: 'api_key',
    tag: 'factories',
    summary:
      "Mark notifications read for the caller (a person's key): one outcome per UID, in request order; unknown UIDs are successful no-ops.",
    params: {},
    body: { schema: InboxMarkSchema, presence: 'required' },
    responses: { 200: json('The outcomes.', InboxMarkResponseSchema) },
  }),
  markInboxUnread: route({
    method: 'POST',
    area: 'api',
    path: '/factory-inbox/notifications/unread',
    auth: 'api_key',
    tag: 'factories',
    summary:
      "Mark notifications unread for the caller (a person's key): one outcome per UID, in request order; unknown UIDs are successful no-ops.",
    params: {},
    body: { schema: InboxMarkSchema, presence: 'required' },
    responses: { 200: json('The outcomes.', InboxMarkResponseSchema) },
  }),
};
