// The status a worker leaves on a run as it starts it (docs/run-api.md, "Run events"): it names the
// worker and the host it serves, so the `state` event of the start (its `status_message`) still
// says where the run ran once the run has finished and its lease is gone.

/** Where a run was started: the worker's id and the host it serves (docs/operations.md, "Worker hosts"). */
export interface RunStartedBy {
  workerId: string;
  host: string;
}

const PREFIX = 'Started on worker ';

/** The status message of a run `workerId` of `host` starts. */
export const startedStatus = (by: RunStartedBy): { message: string } => ({ message: `${PREFIX}${by.workerId} (host ${by.host})` });

/** The worker and host a start's status message names; undefined for any other message. */
export function startedBy(message: string): RunStartedBy | undefined {
  if (!message.startsWith(PREFIX) || !message.endsWith(')')) return undefined;
  const rest = message.slice(PREFIX.length, -1);
  const at = rest.lastIndexOf(' (host ');
  if (at <= 0) return undefined;
  return { workerId: rest.slice(0, at), host: rest.slice(at + ' (host '.length) };
}
