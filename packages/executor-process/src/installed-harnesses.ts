import { execFile } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import type { HarnessInfo, HarnessType } from '@agentrun/core';
import { HARNESS_TYPES as CLI_TYPES, type HarnessType as CliType, HARNESSES, type Harness } from '@agentrun/harnesses';
import type { HarnessesOption } from './options.js';
import { findProgram } from './sandbox.js';

/** How long `<cli> --version` may take (gemini is a large script: a second or two on a busy machine). */
const VERSION_TIMEOUT_MS = 20_000;

/** An agent CLI found on this server, ready to run (docs/harnesses.md, "Installing the CLIs"). */
export interface InstalledHarness {
  harness: Harness;
  /** The program, as found. */
  path: string;
  /** Host directories a sandboxed agent is shown read-only so the program runs: its package's `node_modules`, or its directory. */
  readOnly: string[];
  /** `<cli> --version`, asked once, on first use. */
  version(): Promise<string | undefined>;
}

/**
 * The CLIs this executor runs: each configured one at its path (else on `PATH`; configured and not
 * found is an error at construction), or with `'auto'` each of the three found on `PATH`.
 */
export function installedHarnesses(option: HarnessesOption, path: string | undefined): Map<CliType, InstalledHarness> {
  const found = new Map<CliType, InstalledHarness>();
  for (const type of CLI_TYPES) {
    const harness = HARNESSES[type];
    if (!harness) continue;
    const setup = option === 'auto' ? {} : option[type];
    if (setup === undefined || setup === false) continue;
    const program = findProgram(setup === true || setup.path === undefined ? harness.program : setup.path, path);
    if (!program) {
      if (option === 'auto') continue;
      throw new Error(
        `processExecutor: option harnesses.${type}: ${harness.program} is not installed here (install ${harness.package.name}@${harness.package.version}, or give its path)`,
      );
    }
    const installed = packageVersion(program, harness.package.name);
    found.set(type, {
      harness,
      path: program,
      readOnly: [programHome(program)],
      version: installed !== undefined ? () => Promise.resolve(installed) : once(() => versionOf(program)),
    });
  }
  return found;
}

/** What `GET /agent/harnesses` shows of an executor's harnesses, the default marked. */
export async function harnessList(
  installed: ReadonlyMap<CliType, InstalledHarness>,
  command: boolean,
  defaultType: HarnessType | undefined,
): Promise<HarnessInfo[]> {
  const list: HarnessInfo[] = [];
  for (const [type, cli] of installed) {
    const version = await cli.version();
    list.push({ type, ...(version !== undefined ? { version } : {}), ...(type === defaultType ? { default: true } : {}) });
  }
  if (command) list.push({ type: 'command', ...(defaultType === 'command' ? { default: true } : {}) });
  return list;
}

/** The directory a sandbox shows for the program: the `node_modules` it was installed in (its platform binary is a sibling package), else its own. */
function programHome(program: string): string {
  const real = realpathSync(program);
  const at = real.lastIndexOf(`${sep}node_modules${sep}`);
  return at === -1 ? dirname(real) : real.slice(0, at + `${sep}node_modules`.length);
}

/**
 * The version of the npm package the program belongs to, read from its package.json (no process
 * started: `gemini --version` alone costs two seconds of CPU); undefined when it is not one.
 */
function packageVersion(program: string, name: string): string | undefined {
  for (let dir = dirname(realpathSync(program)); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === name && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // No package.json here, or not one that reads: further up.
    }
  }
  return undefined;
}

/** What the program says of its version, for one installed some other way. */
function versionOf(program: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      program,
      ['--version'],
      { timeout: VERSION_TIMEOUT_MS, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', DISABLE_AUTOUPDATER: '1', NO_COLOR: '1' } },
      (error, stdout) => {
        const match = /\d+\.\d+\.\d+[\w.+-]*/.exec(String(stdout));
        resolve(error ? undefined : match?.[0]);
      },
    );
  });
}

function once<T>(make: () => T): () => T {
  let value: { v: T } | undefined;
  return () => {
    value ??= { v: make() };
    return value.v;
  };
}

export const isCliType = (type: string): type is CliType => (CLI_TYPES as readonly string[]).includes(type);
