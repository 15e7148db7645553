/**
 * What the command line exits with (docs/cli.md, "Exit codes"): scripts branch on these, so each
 * class of outcome has its own number and they never change.
 */
export const EXIT = {
  /** Done. */
  ok: 0,
  /** A negative answer that is not an error: `filter test` found the payload would not trigger. */
  no: 1,
  /** Bad flags or arguments, an unreadable or invalid file, input refused before any request. */
  usage: 2,
  /** The API answered with a status that is not a success (or a check against it failed, such as `secret create` of an existing name). */
  api: 3,
  /** No answer: connection refused or reset, DNS, timeout. */
  network: 4,
  /** `run --wait` / `--follow`: the run ended in a state other than SUCCEEDED. */
  runNotSucceeded: 5,
  /** A bug in the command line itself; the message says what to report. */
  internal: 70,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
