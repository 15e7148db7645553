import type { SecretCipher } from '../control/secret-cipher.js';
import { secretSlot } from '../control/secret-cipher.js';
import type { RunErrorCode } from '../run/error-codes.js';
import type { Store } from '../store/store.js';
import type { EnvironmentRepository } from './records.js';
import { isRepositoryName } from './schemas.js';

/**
 * What an executor receives of a run's environment (docs/repositories.md, "What an executor
 * receives"; docs/executors.md): the environment as stored, with each variable's team secret
 * opened. Opened values are `SecretValue`s: printing, logging or serializing one shows `[secret]`,
 * so a value never reaches a log line or a transcript entry by accident; `reveal()` hands it to
 * the process that needs it (the setup commands' and the agent's environment).
 */
export interface ResolvedEnvironment {
  id: string;
  name: string;
  repositories: readonly ResolvedRepository[];
  setup: readonly string[];
  /** Environment variable name → the value of its team secret. */
  variables: Readonly<Record<string, SecretValue>>;
  setupTimeoutSeconds: number;
  /** The OCI image a container executor starts the run from (docs/executors.md, "The container executor"). */
  image?: string;
  /** Container limits the environment sets; the executor's defaults fill what it leaves out. */
  limits?: ContainerLimits;
}

/** Limits of a run's container (docs/executors.md, "The container executor"). */
export interface ContainerLimits {
  memoryMb?: number;
  cpus?: number;
  pids?: number;
  /** `none`, or the name of a network the engine has. */
  network?: string;
}

/**
 * One repository to clone, as the environment names it (`repository`: a clone URL or a registered
 * `<owner>/<repo>`) and where it is read from: `url`, the registered repository's for a name, and
 * `credential`, its `credential_secret` opened (docs/repositories.md, "What an executor receives").
 */
export interface ResolvedRepository extends EnvironmentRepository {
  url: string;
  /** The environment's team: a reader that caches keeps each team's reads apart (`RepositoryAccess.team`). */
  team: string;
  credential?: SecretValue;
}

const HIDDEN = '[secret]';

/** A secret's value, hidden from every way a value is usually printed or serialized. */
export class SecretValue {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  /** The value itself: for the environment of the process that needs it, never for a log. */
  reveal(): string {
    return this.#value;
  }
  toString(): string {
    return HIDDEN;
  }
  toJSON(): string {
    return HIDDEN;
  }
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return HIDDEN;
  }
}

/** Why a run's environment cannot be had: the run then ends FAILED with this code (docs/repositories.md). */
export class EnvironmentUnavailable extends Error {
  readonly code: RunErrorCode = 'environment_unavailable';
}

/**
 * The run's environment with its secrets opened, or `undefined` for a run without one. Checked
 * when the run was created; deleted since, or a variable's team secret gone: `EnvironmentUnavailable`.
 */
export async function resolveEnvironment(
  store: Store,
  cipher: SecretCipher,
  teamUid: string,
  environmentId: string | undefined,
): Promise<ResolvedEnvironment | undefined> {
  if (environmentId === undefined) return undefined;
  const e = await store.environments.get(teamUid, environmentId);
  if (!e) throw new EnvironmentUnavailable(`environment ${environmentId} no longer exists`);
  const variables: Record<string, SecretValue> = {};
  for (const [variable, name] of Object.entries(e.variables)) {
    const secret = await store.secrets.get(teamUid, name);
    if (!secret)
      throw new EnvironmentUnavailable(`environment ${e.name}: variable ${variable} needs team secret ${name}, which no longer exists`);
    variables[variable] = new SecretValue(await cipher.open(secret.ciphertext, secretSlot(teamUid, name)));
  }
  const repositories: ResolvedRepository[] = [];
  for (const r of e.repositories) repositories.push(await resolveRepository(store, cipher, teamUid, e.name, r));
  return {
    id: e.id,
    name: e.name,
    repositories,
    setup: e.setup,
    variables,
    setupTimeoutSeconds: e.setupTimeoutSeconds,
    ...(e.image !== undefined ? { image: e.image } : {}),
    ...(e.limits !== undefined ? { limits: { ...e.limits } } : {}),
  };
}

/**
 * A clone URL as it is; an `<owner>/<repo>` name resolved against the team's registered
 * repositories now (checked when the environment was saved): its URL, and its credential opened.
 * Deleted since, or its credential secret gone: `EnvironmentUnavailable`.
 */
async function resolveRepository(
  store: Store,
  cipher: SecretCipher,
  teamUid: string,
  environment: string,
  r: EnvironmentRepository,
): Promise<ResolvedRepository> {
  if (!isRepositoryName(r.repository)) return { ...r, url: r.repository, team: teamUid };
  const registered = await store.repositories.get(teamUid, r.repository);
  if (!registered) throw new EnvironmentUnavailable(`environment ${environment}: repository ${r.repository} is no longer registered`);
  if (registered.credentialSecret === null) return { ...r, url: registered.url, team: teamUid };
  const secret = await store.secrets.get(teamUid, registered.credentialSecret);
  if (!secret)
    throw new EnvironmentUnavailable(
      `environment ${environment}: repository ${r.repository} needs team secret ${registered.credentialSecret}, which no longer exists`,
    );
  const credential = new SecretValue(await cipher.open(secret.ciphertext, secretSlot(teamUid, registered.credentialSecret)));
  return { ...r, url: registered.url, team: teamUid, credential };
}
