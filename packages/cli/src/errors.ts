import { EXIT, type ExitCode } from './exit-codes.js';

/**
 * A failure the command line explains itself and exits with a chosen code. API and connection
 * errors stay the client's own classes (@agentrun/client); report.ts maps them.
 */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
  }
}

/** Bad flags or arguments, or input refused before any request: exit 2, with a pointer to `--help`. */
export class UsageError extends CliError {
  override name = 'UsageError';
  constructor(message: string) {
    super(message, EXIT.usage);
  }
}

/** Input refused before any request: a file that cannot be read or does not parse, a value that would be refused. Exit 2, no help pointer. */
export class InvalidInputError extends CliError {
  override name = 'InvalidInputError';
  constructor(message: string) {
    super(message, EXIT.usage);
  }
}
