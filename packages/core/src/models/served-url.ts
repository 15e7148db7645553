/**
 * The one decider for a URL an agent reports that agentrun serves back for a person to open: a
 * pull request's or a plan's `url` (artifacts/report.ts) and a run's `session_link`
 * (run/session-link.ts). The agent is untrusted and clients show these as links, so only an
 * absolute http(s) URL is kept: a `javascript:` or `data:` link would run in the reader's browser,
 * a `file:` or relative one open something other than what the run names (docs/artifacts.md,
 * "Reporting artifacts"; docs/run-api.md, "The run").
 */

/** Most characters of a served URL. */
const MAX_SERVED_URL_CHARS = 2048;

/** Why `value` is not a URL agentrun serves, or `undefined` when it is one. */
export function servedUrlProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be an http(s) URL';
  if (value.length > MAX_SERVED_URL_CHARS) return `must be at most ${MAX_SERVED_URL_CHARS} characters`;
  // The scheme is read from the text as given (no leading space, no other scheme), and the whole
  // of it must parse: what is stored and served is this text, not a normalised copy.
  if (!/^https?:\/\//i.test(value) || !URL.canParse(value)) return 'must be an http(s) URL';
  return undefined;
}
