import type { HarnessInfo } from '@agentrun/core';
import { type HarnessRunner, harnessList, type InstalledHarness } from '@agentrun/executor-process/internal';
import { HARNESS_TYPES as CLI_TYPES, type HarnessType as CliType, HARNESSES } from '@agentrun/harnesses';
import { type ExecIn, execAgent } from './container-agent.js';
import { CONTAINER_HOME, CONTAINER_WORKSPACE } from './container-spec.js';

/**
 * The agent CLIs in a run's container (docs/executors.md, "The container executor", "Agent CLIs"):
 * the image holds them; the executor's `harnesses` option declares which (what `harnesses()`
 * lists and a run may name: an image cannot be probed cheaply, and a run is checked at create,
 * before its environment's image is known), and where each is: the image's label
 * `agentrun.harness.<type>`, else the option's `path`, else the CLI's program on the image's PATH.
 * Each turn is an `exec` in the run's container, the process executor's harness run otherwise
 * (command line, variables, key, home, output: docs/harnesses.md).
 */

/** One CLI of `harnesses`: its path in the images (unless an image's label says) and the version `harnesses()` shows. */
export interface ContainerHarness {
  path?: string;
  version?: string;
}
export type ContainerHarnesses = { [K in CliType]?: ContainerHarness };

/** An image's label naming a CLI's path in it: `agentrun.harness.claude=/opt/agent/bin/claude`. */
export const HARNESS_LABEL_PREFIX = 'agentrun.harness.';

/** The CLIs declared, as the process executor's list shows installed ones. */
export function declaredHarnesses(option: ContainerHarnesses): Map<CliType, InstalledHarness> {
  const declared = new Map<CliType, InstalledHarness>();
  for (const type of CLI_TYPES) {
    const setup = option[type];
    const harness = HARNESSES[type];
    if (setup === undefined || !harness) continue;
    const version = setup.version;
    declared.set(type, { harness, path: setup.path ?? harness.program, readOnly: [], version: () => Promise.resolve(version) });
  }
  return declared;
}

/** What `GET /agent/harnesses` shows: the declared CLIs, and the command harness, the default. */
export const containerHarnessList = (declared: ReadonlyMap<CliType, InstalledHarness>): Promise<HarnessInfo[]> =>
  harnessList(declared, true, 'command');

/** The CLI's path in this image: its label, else the declared one. */
export function programIn(inspected: Record<string, unknown>, cli: InstalledHarness): string {
  const labels = ((inspected.Config ?? {}) as { Labels?: Record<string, string> | null }).Labels ?? {};
  const labelled = labels[`${HARNESS_LABEL_PREFIX}${cli.harness.type}`];
  return labelled !== undefined && labelled !== '' ? labelled : cli.path;
}

export interface ExecHarness {
  at: ExecIn;
  /** The run's home on this host (bind-mounted at CONTAINER_HOME). */
  home: string;
  program: string;
  /** Who is given the home and the turn's files: the agent's user when the server may (root). */
  owner: { uid: number; gid: number } | undefined;
  endpoint: string | undefined;
  maxOutputBytes: number;
  onError: (error: unknown) => void;
}

/** The harness run's turns as `exec`s of the CLI in the run's container, seeing the workspace and home at their container paths. */
export const execHarness = (parts: ExecHarness): HarnessRunner => ({
  user: parts.owner,
  maxOutputBytes: parts.maxOutputBytes,
  onError: parts.onError,
  home: parts.home,
  seen: { workspace: CONTAINER_WORKSPACE, home: CONTAINER_HOME },
  endpoint: parts.endpoint,
  launch: (args, env) => execAgent(parts.at, [parts.program, ...args], env),
});
