/**
 * The harnesses a run may name in `config.harness.type` (docs/harnesses.md): the three agent CLIs
 * and `command`, the process executor's own protocol. `oz`, or no `type`, is the server's default
 * harness, whichever that is.
 */
export const HARNESS_TYPES = ['claude', 'codex', 'gemini', 'command'] as const;
export type HarnessType = (typeof HARNESS_TYPES)[number];

/** The name that means "this server's default harness", as the published clients send it. */
export const DEFAULT_HARNESS_NAME = 'oz';

/** A harness an executor can run, as `GET /agent/harnesses` lists it. */
export interface HarnessInfo {
  type: HarnessType;
  /** The CLI's version as it reports it (`claude --version`), where it has one. */
  version?: string;
  /** Whether a run with no `type` (or `oz`) runs this harness. */
  default?: boolean;
}

/**
 * The `config.harness_auth_secrets` members, and the harness each names the secret of, as the
 * published Python client has them; `config.harness.auth_secret_name` names the secret of the run's
 * own harness and wins over these.
 */
export const HARNESS_AUTH_FIELDS = { claude_auth_secret_name: 'claude', codex_auth_secret_name: 'codex' } as const;
export type HarnessAuthField = keyof typeof HARNESS_AUTH_FIELDS;
