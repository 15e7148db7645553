import type { ProgressUpdate } from '../executor/executor.js';
import { servedUrlProblem } from '../models/served-url.js';

/**
 * A run's `session_link`. Its default is the run's page in the dashboard, as a person's browser
 * reaches it (docs/run-api.md, "The run"; docs/embedding.md, "Session links"). The worker gives it to a
 * run that starts without one; a link the agent reports (`context.report`) replaces it, when it is
 * a URL agentrun serves (`agentSessionLink` below).
 *
 * It is built from `publicBaseUrl` because a worker has no request to take an origin from, and a
 * relative path in an API answer opens nothing. Without `publicBaseUrl` (or with `dashboardPath:
 * false`) there is no default: a run has a `session_link` only once its agent reports one.
 */

/** The options of `createAgentRun` the link is made from (app/options.ts says what each means). */
interface SessionLinkOptions {
  publicBaseUrl?: string | undefined;
  dashboardPath?: string | false | undefined;
}

/** `createDashboard`'s own default `basePath` (packages/dashboard/src/server/options.ts). */
const DEFAULT_DASHBOARD_PATH = '/dashboard';

/**
 * The link of a run by its ID, `<publicBaseUrl><dashboardPath>/runs/<runId>` (the dashboard's run
 * page, packages/dashboard/src/app/app.tsx), or undefined when there is no default link.
 */
export function sessionLinkFor(options: SessionLinkOptions): ((runId: string) => string) | undefined {
  const { publicBaseUrl, dashboardPath = DEFAULT_DASHBOARD_PATH } = options;
  if (publicBaseUrl === undefined || dashboardPath === false) return undefined;
  const base = `${publicBaseUrl.replace(/\/+$/, '')}${dashboardPath.replace(/\/+$/, '')}/runs/`;
  return Object.assign((runId: string) => base + encodeURIComponent(runId), { [BASE]: base });
}

const BASE = Symbol('session link base');

/**
 * The base a link of `sessionLinkFor` puts before a run's id, so a store can write the link in the
 * claim that starts the run (worker/runs-part.ts); undefined for a link made otherwise. Run ids
 * are UUIDs (util/ids.ts), which `encodeURIComponent` leaves as they are.
 */
export const sessionLinkBase = (link: (runId: string) => string): string | undefined => (link as { [BASE]?: string })[BASE];

/**
 * A progress update as the run takes it: a `session_link` that is not a URL agentrun serves
 * (models/served-url.ts: http(s) only, as a pull request's) is left out, and `refused` says why.
 * The rest of the update stands, as an artifact refused leaves the run going (docs/run-api.md,
 * "The run").
 */
export function agentSessionLink(update: ProgressUpdate): { update: ProgressUpdate; refused?: string } {
  if (update.session_link === undefined) return { update };
  const refused = servedUrlProblem(update.session_link);
  if (refused === undefined) return { update };
  const { session_link: _, ...rest } = update;
  return { update: rest, refused };
}
