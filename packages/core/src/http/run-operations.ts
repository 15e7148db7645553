import { REPEATABLE_QUERY_PARAMS } from '../models/requests.js';
import { ROUTES } from '../routes/table.js';
import type { WriteResult } from '../run/idempotency.js';
import { listRunEvents, parseRunEventsQuery, requireTeamRun } from '../run/run-events.js';
import type { RunService } from '../run/run-service.js';
import { transcriptHtml } from '../run/transcript-html.js';
import { parseTranscriptQuery } from '../run/transcript-query.js';
import { eventPageGate } from './event-page-gate.js';
import { withKey } from './idempotency-key.js';
import type { JsonReaders } from './json-readers.js';
import type { ApiContext, OperationHandlers } from './operation.js';
import { DEFAULT_STREAM_LIMITS, pacedBody, type StreamLimits } from './paced-body.js';
import { queryObject } from './query.js';
import { jsonResponse, jsonTextResponse } from './responses.js';
import { runEventStream, streamStart, wantsEventStream } from './run-event-stream.js';
import { textResponse } from './text-response.js';

type RunOperation =
  | 'runAgent'
  | 'createRun'
  | 'listRuns'
  | 'getRun'
  | 'followupRun'
  | 'cancelRun'
  | 'getRunAttachment'
  | 'listRunEvents'
  | 'getRunTranscript'
  | 'checkSessionRedirect';

/**
 * The run API (docs/run-api.md) over the run service. `streamLimits` pace the bodies read from a
 * run's transcript (the live stream, the transcript page) by their client (http/paced-body.ts).
 */
export function runOperations(
  runs: RunService,
  { readJson, requireBody, readEmpty }: JsonReaders,
  streamLimits: StreamLimits = DEFAULT_STREAM_LIMITS,
): OperationHandlers<RunOperation> {
  // Bounds the memory all event-page builds hold at once (http/event-page-gate.ts).
  const pages = eventPageGate();
  const written = <T>(result: WriteResult<T>) =>
    jsonResponse(result.body, result.status, result.replayed ? { 'idempotent-replayed': 'true' } : {});
  // One operation for `/agent/run` and its alias: a key names the same request through either.
  const createRun = async ({ principal, request }: ApiContext) => {
    const body = requireBody(await readJson(request, ROUTES.runAgent.body.schema), 'run request');
    return written(await runs.create(principal, body, { ...withKey(request, 'create run', body) }));
  };
  return {
    runAgent: createRun,
    createRun,
    listRuns: async ({ principal, url }) => jsonResponse(await runs.list(principal, queryObject(url, REPEATABLE_QUERY_PARAMS))),
    getRun: async ({ principal }, { runId }) => jsonResponse(await runs.get(principal, runId)),
    followupRun: async ({ principal, request }, { runId }) => {
      const body = requireBody(await readJson(request, ROUTES.followupRun.body.schema), 'follow-up');
      return written(await runs.followup(principal, runId, body, withKey(request, `followup ${runId}`, body)));
    },
    cancelRun: async ({ principal, request }, { runId }) => {
      const body = await readEmpty(request, 'cancel');
      // The bare ID as text/plain (docs/run-api.md, "Cancel"): both published clients hand it back unchanged.
      const result = await runs.cancel(principal, runId, withKey(request, `cancel ${runId}`, body));
      return textResponse(result.body, result.status, {
        'content-type': 'text/plain; charset=utf-8',
        ...(result.replayed ? { 'idempotent-replayed': 'true' } : {}),
      });
    },
    listRunEvents: async ({ principal, url, request }, { runId }) => {
      // HEAD answers the page's headers: a stream nobody reads would never be cancelled.
      if (request.method !== 'GET' || !wantsEventStream(request)) {
        const page = await listRunEvents(runs.store, principal.team_uid, runId, queryObject(url), (build) => pages.run(build));
        return jsonTextResponse(page.body);
      }
      const { after } = parseRunEventsQuery(queryObject(url));
      return runEventStream(runs.store, principal.team_uid, runId, streamStart(request, after), request, streamLimits);
    },
    getRunTranscript: async ({ principal, url, request }, { runId }) => {
      const { after } = parseTranscriptQuery(queryObject(url));
      const run = await requireTeamRun(runs.store, principal.team_uid, runId);
      // Streamed in pieces as the client takes them (docs/run-api.md, "The transcript page"); HEAD
      // gets the headers only, without a body that would read the store for nobody.
      return new Response(request.method === 'HEAD' ? null : pacedBody(() => transcriptHtml(runs.store, run, after), streamLimits), {
        status: 200,
        headers: {
          'content-type': 'text/html; charset=utf-8',
          // Nothing on the page runs or loads: only its own inline style.
          'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
          'x-content-type-options': 'nosniff',
        },
      });
    },
    checkSessionRedirect: async ({ principal }, { sessionUuid }) => jsonResponse(await runs.sessionRedirect(principal, sessionUuid)),
    getRunAttachment: async ({ principal }, { runId, fileName }) => {
      const file = await runs.getAttachment(principal, runId, fileName);
      return new Response(file.data as Uint8Array<ArrayBuffer>, {
        headers: {
          'content-type': file.mimeType,
          'content-length': String(file.data.byteLength),
          'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(file.fileName)}`,
          'x-content-type-options': 'nosniff',
        },
      });
    },
  };
}
