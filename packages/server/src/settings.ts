import { DEFAULT_CALLBACK_POLICY, HARNESS_TYPES } from '@agentrun/core';
import { MIN_API_KEY_LENGTH } from '@agentrun/core/internal';
import { CONTAINMENTS, DISK_LIMITS, KEEP_WORKSPACES } from '@agentrun/executor-process';
import { HARNESS_TYPES as CLI_HARNESS_TYPES, type HarnessType as CliHarnessType, HARNESSES } from '@agentrun/harnesses';
import {
  autoOrList,
  bytes,
  connectionString,
  count,
  decimal,
  flag,
  hostId,
  httpUrl,
  listWithPaths,
  ms,
  names,
  oneOf,
  path,
  paths,
  port,
  type SettingKind,
  secretKeys,
  secretText,
  showMs,
  text,
  userAndGroup,
} from './setting-kinds.js';

/**
 * Every environment variable `npm start` reads, in one table: read and checked by
 * read-settings.ts, listed by `npm start -- --help` and written to docs/server.md by
 * `npm run docs:server` (settings-docs.ts). A variable the server reads is a row here, and nothing
 * else in the server reads the environment.
 */

/** The table's sections, in the order help and docs show them. */
export const SETTING_GROUPS = {
  server: { title: 'Serving', about: 'Where the server listens, who may call it, and how it stops.' },
  storage: {
    title: 'Storage',
    about:
      'Where factories, secrets, webhooks, automations, deliveries, runs and API keys are kept. The embedded store is ' +
      'PostgreSQL compiled to WebAssembly (PGlite) in this process: the same tables and migrations as on a server.',
  },
  runs: { title: 'Runs and deliveries', about: 'Who works on runs, and how often the server looks for work.' },
  repositories: { title: 'Repositories', about: 'The git layer behind skills, environments and factory sources.' },
  callbacks: { title: 'Run-state callbacks', about: 'Where callbacks may go and how they are retried.' },
  executor: {
    title: 'The process executor',
    about: 'Read with `AGENTRUN_EXECUTOR=process`: the agent CLIs and your command, each run in a workspace of its own.',
  },
  isolation: {
    title: 'Isolating the agent',
    about: 'Read with `AGENTRUN_EXECUTOR=process`: whose rights the agent has, and what it sees.',
  },
  container: {
    title: 'The container executor',
    about:
      'Read with `AGENTRUN_EXECUTOR=container`: each run in a container of its own, through the Docker Engine API (Docker or Podman). ' +
      'It also reads `AGENTRUN_AGENT_TIMEOUT_MS`, `AGENTRUN_AGENT_KILL_GRACE_MS`, `AGENTRUN_AGENT_MAX_OUTPUT_BYTES` and `AGENTRUN_WORKSPACE_ROOT` above.',
  },
} as const;

export type SettingGroup = keyof typeof SETTING_GROUPS;

/** One row: `V` is what the server gets, the kind's type, or `undefined` when unset and without a default. */
export interface Setting<T, V extends T | undefined> {
  readonly group: SettingGroup;
  readonly kind: SettingKind<T>;
  /** What an unset or blank variable reads as. */
  readonly default: V;
  /** The default as docs show it, where it is decided elsewhere (a library's, or by other settings). */
  readonly defaultText?: string;
  /** One sentence, for help and docs. */
  readonly meaning: string;
  /** The docs section that explains it: a file under docs/, `#` and its heading's anchor; none when docs/server.md does. */
  readonly docs?: string;
}

type Row<T> = Omit<Setting<T, T>, 'default' | 'defaultText'>;
/** A row the server fills in when unset. */
const given = <T>(row: Row<T> & { default: NoInfer<T> }): Setting<T, T> => row;
/** A row left undefined when unset: the default is decided where `defaultText` says. */
const optional = <T>(row: Row<T> & { defaultText: string }): Setting<T, T | undefined> => ({ ...row, default: undefined });

/** `AGENTRUN_CLAUDE_PATH` and its siblings: one per agent CLI of @agentrun/harnesses. */
export type CliPathVariable = `AGENTRUN_${Uppercase<CliHarnessType>}_PATH`;
export const cliPathVariable = (cli: CliHarnessType) => `AGENTRUN_${cli.toUpperCase()}_PATH` as CliPathVariable;
const CLI_PATHS = Object.fromEntries(
  CLI_HARNESS_TYPES.map((cli) => [
    cliPathVariable(cli),
    optional({
      group: 'executor',
      kind: path,
      defaultText: 'found on `PATH`',
      meaning: `Where the \`${cli}\` program is, when it is not on \`PATH\`.`,
      docs: 'harnesses.md#installing-the-clis',
    }),
  ]),
) as Record<CliPathVariable, Setting<string, string | undefined>>;

/** `ANTHROPIC_BASE_URL` and its siblings: each CLI's model endpoint, as the server gives it to the container executor. */
export type CliEndpointVariable = 'ANTHROPIC_BASE_URL' | 'OPENAI_BASE_URL' | 'GOOGLE_GEMINI_BASE_URL';
export const cliEndpointVariable = (cli: CliHarnessType) => HARNESSES[cli]?.endpointVariable as CliEndpointVariable;
const CLI_ENDPOINTS = Object.fromEntries(
  CLI_HARNESS_TYPES.map((cli) => [
    cliEndpointVariable(cli),
    optional({
      group: 'container',
      kind: httpUrl,
      defaultText: 'none',
      meaning: `The model endpoint \`${cli}\` is given in a run's container (the process executor passes the server's own); it must be reachable from the container's network.`,
      docs: 'executors.md#agent-clis',
    }),
  ]),
) as Record<CliEndpointVariable, Setting<string, string | undefined>>;

const ms0 = ms(0);
const msAbove0 = ms();

export const SETTINGS = {
  // ── Serving
  PORT: given({
    group: 'server',
    kind: port,
    default: 8080,
    meaning: 'The port of the API, the webhook ingress and the dashboard; 0 picks a free one.',
  }),
  HOST: given({
    group: 'server',
    kind: text,
    default: '0.0.0.0',
    meaning: 'The address to listen on: `0.0.0.0` every interface, `127.0.0.1` this machine only.',
  }),
  AGENTRUN_PUBLIC_URL: optional({
    group: 'server',
    kind: httpUrl,
    defaultText: '`http://localhost:PORT`',
    meaning: "Where people reach this server: runs' session links (its dashboard) and ingress URLs start with it.",
    docs: 'embedding.md#session-links',
  }),
  WEBHOOK_BASE_URL: optional({
    group: 'server',
    kind: httpUrl,
    defaultText: '`AGENTRUN_PUBLIC_URL`',
    meaning: 'The base of ingress URLs, when senders reach the server elsewhere.',
    docs: 'management-api.md#webhooks',
  }),
  AGENTRUN_API_KEY: optional({
    group: 'server',
    kind: secretText(MIN_API_KEY_LENGTH),
    defaultText: 'made once per store',
    meaning: 'A bootstrap key of your choosing, registered in the store once. Without it the first start makes one and shows it once.',
    docs: 'operations.md#api-keys',
  }),
  AGENTRUN_METRICS_PORT: optional({
    group: 'server',
    kind: port,
    defaultText: 'off',
    meaning: 'Serve OpenTelemetry metrics for Prometheus on this port of `HOST`, at `/metrics`.',
    docs: 'operations.md#metrics-and-traces',
  }),
  AGENTRUN_SHUTDOWN_GRACE_MS: given({
    group: 'server',
    kind: msAbove0,
    default: 10_000,
    meaning:
      'On SIGTERM or SIGINT, how long running executions may take to finish before they go back to the queue; the stop takes 5 s more at most, a second signal ends it at once.',
    docs: 'operations.md#graceful-shutdown',
  }),

  // ── Storage
  AGENTRUN_STORE: optional({
    group: 'storage',
    kind: oneOf(['embedded', 'postgres', 'memory']),
    defaultText: '`postgres` with `DATABASE_URL`, else `embedded`',
    meaning: 'The store: embedded PostgreSQL under `AGENTRUN_DATA_DIR`, the PostgreSQL server of `DATABASE_URL`, or memory (gone at exit).',
  }),
  AGENTRUN_DATA_DIR: given({
    group: 'storage',
    kind: path,
    default: './.agentrun',
    meaning: "The embedded store's directory: its database, its secret key and artifacts' bytes. One server at a time.",
  }),
  DATABASE_URL: optional({
    group: 'storage',
    kind: connectionString,
    defaultText: 'none',
    meaning: 'A PostgreSQL server: migrated at start, waited for while it is down. Several servers may share it.',
    docs: 'production.md#connect',
  }),
  AGENTRUN_DB_SCHEMA: optional({
    group: 'storage',
    kind: text,
    defaultText: '`agentrun`',
    meaning: "The schema of agentrun's tables in that database.",
    docs: 'production.md#where-the-tables-go-the-schema-option',
  }),
  AGENTRUN_SECRET_KEY: optional({
    group: 'storage',
    kind: secretKeys,
    defaultText: 'embedded: one kept in `AGENTRUN_DATA_DIR`; memory: one for this process; postgres: none',
    meaning:
      'Seals team secrets: 32 bytes in base64 or hex (`openssl rand -base64 32`). A comma-separated list rotates: the first seals, all open.',
    docs: 'operations.md#rotating-the-secret-key',
  }),
  AGENTRUN_BLOB_DIR: optional({
    group: 'storage',
    kind: path,
    defaultText: 'embedded: `AGENTRUN_DATA_DIR/blobs`; postgres: the database; memory: memory',
    meaning: "Keep artifacts' bytes as files under this directory.",
    docs: 'artifacts.md#blob-storage',
  }),

  // ── Runs and deliveries
  AGENTRUN_EXECUTOR: given({
    group: 'runs',
    kind: oneOf(['demo', 'process', 'container']),
    default: 'demo',
    meaning:
      'Who works on runs: a demo agent, the process executor (agent CLIs and your command, set below), or the container executor (a container per run).',
    docs: 'executors.md#the-process-executor',
  }),
  AGENTRUN_DEMO_DURATION_MS: optional({
    group: 'runs',
    kind: msAbove0,
    defaultText: showMs(3000),
    meaning: 'How long the demo agent works on a run.',
  }),
  AGENTRUN_POLL_INTERVAL_MS: optional({
    group: 'runs',
    kind: msAbove0,
    defaultText: showMs(1000),
    meaning: "How often the worker looks for queued runs it was not told of (other processes' runs on a shared store).",
    docs: 'executors.md#the-worker',
  }),
  AGENTRUN_WORKER_HOST: optional({
    group: 'runs',
    kind: hostId,
    defaultText: "the machine's hostname",
    meaning: "The host this process's worker serves: runs whose `config.worker_host` names it go to it (and to no other host's workers).",
    docs: 'operations.md#worker-hosts',
  }),
  AGENTRUN_WORKER_UNROUTED: given({
    group: 'runs',
    kind: flag,
    default: true,
    meaning: '`0`: the worker takes only the runs routed to its host, not the ones that name no `worker_host`.',
    docs: 'operations.md#worker-hosts',
  }),
  AGENTRUN_WORKER_CONCURRENCY: optional({
    group: 'runs',
    kind: count(1),
    defaultText: '4',
    meaning: "How many runs this process's worker executes at once.",
    docs: 'operations.md#worker-hosts',
  }),
  AGENTRUN_EVALUATION_LEASE_MS: optional({
    group: 'runs',
    kind: msAbove0,
    defaultText: showMs(30_000),
    meaning: "How long a server's claim on evaluating deliveries holds before another may take them over.",
    docs: 'webhooks.md#when-runs-start',
  }),

  // ── Repositories
  AGENTRUN_GIT_CACHE_DIR: optional({
    group: 'repositories',
    kind: path,
    defaultText: '`$XDG_CACHE_HOME/agentrun/git`, else `~/.cache/agentrun/git`',
    meaning: "The git layer's cache, shared by skills and environments' checkouts.",
    docs: 'repositories.md#the-cache',
  }),
  AGENTRUN_GIT_ALLOW_LOCAL_PATHS: given({
    group: 'repositories',
    kind: flag,
    default: false,
    meaning: "`1` lets teams name repositories on this host's disk (`file://` URLs).",
    docs: 'repositories.md#urls',
  }),
  AGENTRUN_SOURCE_POLL_INTERVAL_MS: optional({
    group: 'repositories',
    kind: msAbove0,
    defaultText: showMs(60_000),
    meaning: 'How often factory sources are fetched, beside their push notifications.',
    docs: 'repositories.md#factories-from-a-repository',
  }),

  // ── Run-state callbacks
  AGENTRUN_CALLBACKS_ALLOW_PRIVATE: given({
    group: 'callbacks',
    kind: flag,
    default: false,
    meaning: '`1` lets callbacks reach private and loopback addresses (local use, tests).',
    docs: 'callbacks.md#where-callbacks-may-go',
  }),
  AGENTRUN_CALLBACK_BASE_DELAY_MS: optional({
    group: 'callbacks',
    kind: msAbove0,
    defaultText: showMs(DEFAULT_CALLBACK_POLICY.baseDelayMs),
    meaning: "The first retry's delay; each later one waits longer.",
    docs: 'callbacks.md#delivery-retries-ordering-duplicates',
  }),
  AGENTRUN_CALLBACK_TIMEOUT_MS: optional({
    group: 'callbacks',
    kind: msAbove0,
    defaultText: showMs(DEFAULT_CALLBACK_POLICY.timeoutMs),
    meaning: 'How long one attempt may take.',
    docs: 'callbacks.md#options',
  }),

  // ── The process executor
  AGENTRUN_AGENT_COMMAND: optional({
    group: 'executor',
    kind: text,
    defaultText: 'none',
    meaning: "The `command` harness: your agent's command line, run through the shell in each run's workspace.",
    docs: 'harnesses.md#the-command-harness',
  }),
  AGENTRUN_HARNESSES: given({
    group: 'executor',
    kind: autoOrList(CLI_HARNESS_TYPES),
    default: 'auto',
    meaning: 'The agent CLIs: `auto` each found on `PATH`, or a list; a CLI listed and not found stops the start.',
    docs: 'harnesses.md#installing-the-clis',
  }),
  ...CLI_PATHS,
  AGENTRUN_DEFAULT_HARNESS: optional({
    group: 'executor',
    kind: oneOf(HARNESS_TYPES),
    defaultText: '`command` when given, else the first CLI found',
    meaning: 'What a run that names no harness (or `oz`) runs.',
    docs: 'harnesses.md#what-a-server-runs',
  }),
  AGENTRUN_SESSION_IDLE_MS: optional({
    group: 'executor',
    kind: ms0,
    defaultText: showMs(600_000),
    meaning: "How long a CLI's session waits for a follow-up when the run does not say; 0 keeps none.",
    docs: 'harnesses.md#follow-ups',
  }),
  AGENTRUN_AGENT_TIMEOUT_MS: optional({
    group: 'executor',
    kind: msAbove0,
    defaultText: 'no limit',
    meaning: 'A run that takes longer fails with `error_code: timeout`.',
    docs: 'executors.md#the-process-executor',
  }),
  AGENTRUN_AGENT_KILL_GRACE_MS: optional({
    group: 'executor',
    kind: ms0,
    defaultText: showMs(5000),
    meaning: "Between SIGTERM and SIGKILL to the agent's processes.",
    docs: 'executors.md#containment',
  }),
  AGENTRUN_AGENT_MAX_WORKSPACE_BYTES: optional({
    group: 'executor',
    kind: bytes,
    defaultText: 'no cap',
    meaning: 'A run whose files grow beyond this fails with `error_code: disk_limit`.',
    docs: 'executors.md#disk-limits',
  }),
  AGENTRUN_AGENT_DISK_LIMIT: optional({
    group: 'executor',
    kind: oneOf(DISK_LIMITS),
    defaultText: '`auto`',
    meaning: 'How that cap is held: a filesystem per run (as root), measured with `du`, or `auto` the first that works.',
    docs: 'executors.md#disk-limits',
  }),
  AGENTRUN_AGENT_MAX_OUTPUT_BYTES: optional({
    group: 'executor',
    kind: bytes,
    defaultText: '16 MiB',
    meaning: "The most bytes of the agent's stdout a run keeps; the rest is read and dropped.",
    docs: 'executors.md#output-budget',
  }),
  AGENTRUN_AGENT_ENV_ALLOW: optional({
    group: 'executor',
    kind: names,
    defaultText: 'none',
    meaning: "The server's variables the agent may see, beyond the fixed set.",
    docs: 'executors.md#the-agents-environment',
  }),
  AGENTRUN_WORKSPACE_ROOT: optional({
    group: 'executor',
    kind: path,
    defaultText: '`$TMPDIR/agentrun-runs`',
    meaning: "Where each run's directory is made.",
    docs: 'executors.md#the-workspace',
  }),
  AGENTRUN_KEEP_WORKSPACES: optional({
    group: 'executor',
    kind: oneOf(KEEP_WORKSPACES),
    defaultText: '`never`',
    meaning: "When a run's directory is kept after the run.",
    docs: 'executors.md#the-workspace',
  }),

  // ── Isolating the agent
  AGENTRUN_AGENT_USER: optional({
    group: 'isolation',
    kind: userAndGroup,
    defaultText: "the server's",
    meaning: 'Run the agent as this user and group; the server runs as root.',
    docs: 'executors.md#isolating-the-agent',
  }),
  AGENTRUN_AGENT_SANDBOX: optional({
    group: 'isolation',
    kind: oneOf(['bubblewrap']),
    defaultText: 'none',
    meaning: 'Run the agent in a bubblewrap sandbox: it sees the system, its workspace and the paths below.',
    docs: 'executors.md#isolating-the-agent',
  }),
  AGENTRUN_AGENT_SANDBOX_READ_ONLY: optional({
    group: 'isolation',
    kind: paths,
    defaultText: 'none',
    meaning: 'Host paths the sandbox shows read-only (a toolchain, the agent program).',
    docs: 'executors.md#isolating-the-agent',
  }),
  AGENTRUN_AGENT_SANDBOX_READ_WRITE: optional({
    group: 'isolation',
    kind: paths,
    defaultText: 'none',
    meaning: 'Host paths the sandbox shows read-write (a cache).',
    docs: 'executors.md#isolating-the-agent',
  }),
  AGENTRUN_AGENT_SANDBOX_NETWORK: given({
    group: 'isolation',
    kind: flag,
    default: true,
    meaning: '`0` cuts the sandboxed agent off the network.',
    docs: 'executors.md#isolating-the-agent',
  }),
  AGENTRUN_AGENT_CONTAINMENT: optional({
    group: 'isolation',
    kind: oneOf(CONTAINMENTS),
    defaultText: '`auto`',
    meaning:
      "How the agent's descendants are tracked and ended: a PID namespace, the process group, or `auto` a namespace when one can be had.",
    docs: 'executors.md#containment',
  }),

  // ── The container executor
  DOCKER_HOST: optional({
    group: 'container',
    kind: text,
    defaultText: '`unix:///var/run/docker.sock`',
    meaning:
      "The container engine's API, as Docker's client reads it: `unix:///path.sock` (Podman's `podman system service`) or `tcp://host:port`.",
    docs: 'executors.md#the-container-executor',
  }),
  AGENTRUN_CONTAINER_IMAGE: optional({
    group: 'container',
    kind: text,
    defaultText: 'none: a run whose environment names no image fails',
    meaning: "The image a run's container starts from when its environment names none.",
    docs: 'executors.md#the-container-executor',
  }),
  AGENTRUN_CONTAINER_COMMAND: optional({
    group: 'container',
    kind: text,
    defaultText: "the image's own entrypoint and command",
    meaning: "The agent's command line inside the container, run by the image's `/bin/sh -c`.",
    docs: 'executors.md#the-container-executor',
  }),
  AGENTRUN_CONTAINER_MEMORY_MB: optional({
    group: 'container',
    kind: count(6),
    defaultText: '2048',
    meaning: "A run's memory in MiB (no swap), when its environment's limits do not say; past it the run fails out of memory.",
    docs: 'executors.md#limits',
  }),
  AGENTRUN_CONTAINER_CPUS: optional({
    group: 'container',
    kind: decimal(0.01),
    defaultText: '1',
    meaning: "A run's CPUs, when its environment's limits do not say.",
    docs: 'executors.md#limits',
  }),
  AGENTRUN_CONTAINER_PIDS: optional({
    group: 'container',
    kind: count(8),
    defaultText: '512',
    meaning: "The processes and threads a run's container may hold at once, when its environment's limits do not say.",
    docs: 'executors.md#limits',
  }),
  AGENTRUN_CONTAINER_NETWORK: optional({
    group: 'container',
    kind: text,
    defaultText: '`none`',
    meaning:
      "The network of a run's container, when its environment's limits do not say: `none` (a loopback of its own) or a network the engine has.",
    docs: 'executors.md#limits',
  }),
  AGENTRUN_CONTAINER_USER: optional({
    group: 'container',
    kind: userAndGroup,
    defaultText: '`65534:65534`',
    meaning: "The agent's user and group inside the container (`uid:gid`).",
    docs: 'executors.md#the-container-executor',
  }),
  AGENTRUN_CONTAINER_HARNESSES: optional({
    group: 'container',
    kind: listWithPaths(CLI_HARNESS_TYPES),
    defaultText: 'none: the `command` harness alone',
    meaning:
      "The agent CLIs the images hold: each where the image's label `agentrun.harness.<cli>` says, else at its `=/path`, else on the image's `PATH`.",
    docs: 'executors.md#agent-clis',
  }),
  ...CLI_ENDPOINTS,
};

/** The settings as read: each variable's value, its default, or undefined. */
export type Settings = { -readonly [K in keyof typeof SETTINGS]: (typeof SETTINGS)[K] extends Setting<infer _T, infer V> ? V : never };
