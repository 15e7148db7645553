/**
 * A run's API calls as curl command lines to copy (docs/dashboard.md, "A run's page"): the key is
 * always `$AGENTRUN_API_KEY`, for the shell to fill, never the signed-in key.
 */

export interface CurlLine {
  /** What the call does, for its button. */
  label: string;
  command: string;
}

/** A word for a POSIX shell, in single quotes. */
const quote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

const AUTH = '-H "Authorization: Bearer $AGENTRUN_API_KEY"';

/** GET the run, its events, cancel it, send it a follow-up; `apiBase` is where agentrun is mounted. */
export function runCurlLines(apiBase: string, runId: string): CurlLine[] {
  const run = `${apiBase.replace(/\/+$/, '')}/api/v1/agent/runs/${encodeURIComponent(runId)}`;
  return [
    { label: 'Get the run', command: `curl -sS ${AUTH} ${quote(run)}` },
    { label: 'Its events', command: `curl -sS ${AUTH} ${quote(`${run}/events`)}` },
    { label: 'Cancel it', command: `curl -sS -X POST ${AUTH} ${quote(`${run}/cancel`)}` },
    {
      label: 'Send a follow-up',
      command: `curl -sS -X POST ${AUTH} -H 'Content-Type: application/json' -d ${quote(JSON.stringify({ message: 'Your message' }))} ${quote(`${run}/followups`)}`,
    },
  ];
}
