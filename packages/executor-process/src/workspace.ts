import { chmod, chown, lchown, mkdir, readdir, writeFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import type { ExecutionInput, RunItem } from '@agentrun/core';
import { createRunArea, type DiskPlan, type RunArea } from './run-area.js';

/** A run's working directory and the files the agent reads (docs/executors.md, "The workspace"), in its run's directory. */
export interface Workspace {
  dir: string;
  promptFile: string;
  mcpConfigFile: string;
  runFile: string;
  attachmentsDir: string;
  /** Everything the run may write: the workspace, its /tmp and /dev/shm (run-area.ts). */
  area: RunArea;
}

/**
 * A fresh run directory under `root` (run-area.ts) whose workspace holds `prompt.md`, `run.json`,
 * `mcp.json` and `attachments/<file_name>` for every attachment of the run. With `user` (the
 * agent's own user, docs/executors.md "Isolating the agent"), the workspace and its files are that
 * user's, the workspace mode 0700, and `root` and the run directory mode 0711: the agent reaches
 * its own workspace, and cannot list the others.
 */
export async function createWorkspace(
  root: string,
  input: ExecutionInput,
  disk: { maxBytes: number | undefined; plan: DiskPlan },
  user?: { uid: number; gid: number },
): Promise<Workspace> {
  await mkdir(root, { recursive: true });
  if (user) await chmod(root, 0o711);
  const area = await createRunArea(root, `${safeName(input.run.run_id)}-${input.attempt}`, disk.maxBytes, disk.plan);
  const dir = area.workspace;
  const workspace: Workspace = {
    dir,
    promptFile: join(dir, 'prompt.md'),
    mcpConfigFile: join(dir, 'mcp.json'),
    runFile: join(dir, 'run.json'),
    attachmentsDir: join(dir, 'attachments'),
    area,
  };
  try {
    await writeFiles(workspace, input);
    if (user) await giveTo(workspace, user);
  } catch (error) {
    // A workspace that could not be filled is not left behind, whatever keepWorkspaces says.
    await removeWorkspace(workspace).catch(() => {});
    throw error;
  }
  return workspace;
}

async function writeFiles(workspace: Workspace, input: ExecutionInput): Promise<void> {
  await writeFile(workspace.promptFile, promptText(input.run));
  await writeFile(
    workspace.runFile,
    `${JSON.stringify({ run: input.run, attempt: input.attempt, followups: input.followups }, null, 2)}\n`,
  );
  await writeFile(workspace.mcpConfigFile, `${JSON.stringify({ mcpServers: input.run.agent_config?.mcp_servers ?? {} }, null, 2)}\n`);
  await mkdir(workspace.attachmentsDir);
  const taken = new Set<string>();
  for (const { file_name } of input.run.attachments ?? []) {
    const data = await input.readAttachment(file_name);
    if (data === undefined) throw new Error(`attachment ${JSON.stringify(file_name)} of run ${input.run.run_id} is missing from the store`);
    await writeFile(join(workspace.attachmentsDir, attachmentFileName(file_name, taken)), data);
  }
}

/** The names the workspace's own files take at its top: an environment's repository is never checked out over them. */
export const WORKSPACE_FILES: readonly string[] = ['prompt.md', 'run.json', 'mcp.json', 'attachments'];

/** The workspace and every file in it to the agent's user; the directory private to it. */
export async function giveTo(workspace: Workspace, user: { uid: number; gid: number }): Promise<void> {
  const entries = await readdir(workspace.dir, { withFileTypes: true, recursive: true });
  // lchown: a symbolic link a repository holds is given as a link, never the file it points to
  // (chown would follow it, and a server running as root would hand that file to the agent).
  for (const entry of entries) await lchown(join(entry.parentPath, entry.name), user.uid, user.gid);
  await chown(workspace.dir, user.uid, user.gid);
  await chmod(workspace.dir, 0o700);
}

/** Linux's limit on one file name, in bytes. */
const NAME_MAX = 255;
/** An extension longer than this is cut with the rest of the name rather than kept whole. */
const MAX_KEPT_EXTENSION = 32;

/**
 * An attachment's file name in `attachments/` (docs/executors.md, "The workspace"): its base name
 * (`safeName`); when that is longer than 255 UTF-8 bytes, cut on a character boundary with its
 * extension kept; when that name is taken in this run, `~2`, `~3`, … before the extension. Adds
 * the name to `taken`.
 */
export function attachmentFileName(fileName: string, taken: Set<string>): string {
  const base = safeName(fileName);
  const ext = extname(base);
  const keptExt = ext !== '' && Buffer.byteLength(ext) <= MAX_KEPT_EXTENSION ? ext : '';
  const stem = keptExt === '' ? base : base.slice(0, -keptExt.length);
  for (let n = 1; ; n++) {
    const suffix = `${n === 1 ? '' : `~${n}`}${keptExt}`;
    const name =
      Buffer.byteLength(base) <= NAME_MAX && n === 1 ? base : `${cutToBytes(stem, NAME_MAX - Buffer.byteLength(suffix))}${suffix}`;
    if (!taken.has(name)) {
      taken.add(name);
      return name;
    }
  }
}

/** The longest start of `text` of at most `max` UTF-8 bytes, cut between characters (code points). */
function cutToBytes(text: string, max: number): string {
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    bytes += Buffer.byteLength(char);
    if (bytes > max) break;
    end += char.length;
  }
  return text.slice(0, end);
}

/**
 * The prompt as the agent reads it: the base prompt (for a run with a skill, the resolved SKILL.md
 * body first: docs/repositories.md, "Skills"), then a line naming the skill and where it was read,
 * then the prompt, separated by blank lines; parts that are absent are left out.
 */
function promptText(run: RunItem): string {
  const parts = [runInstructions(run), run.prompt].filter((p): p is string => p !== undefined && p !== '');
  return `${parts.join('\n\n')}\n`;
}

/** The base prompt (a skill's instructions first) and the line naming the skill: what a harness gives its CLI as instructions. */
export function runInstructions(run: RunItem): string | undefined {
  const parts = [run.agent_config?.base_prompt, skillLine(run.agent_skill)].filter((p): p is string => p !== undefined && p !== '');
  return parts.length === 0 ? undefined : parts.join('\n\n');
}

function skillLine(skill: RunItem['agent_skill']): string | undefined {
  if (!skill) return undefined;
  // A skill resolved from a repository: its instructions are the base prompt above.
  if (skill.commit !== undefined) {
    return `The instructions above are the skill \`${skill.name}\` (${skill.repository}:${skill.full_path} at commit ${skill.commit}).`;
  }
  // Recorded without its instructions (an automation's skill that no longer resolves).
  return `Use the skill \`${skill.name}\` (${skill.full_path ? `${skill.spec}, ${skill.full_path}` : skill.spec}).`;
}

/** Where the agent's writable directories are on the host, for its start (spawn-agent.ts). */
export const workspacePaths = (workspace: Workspace) => ({ workspace: workspace.dir, tmp: workspace.area.tmp, shm: workspace.area.shm });

/** The run's directory removed, whatever the agent made of it (run-area.ts). */
export const removeWorkspace = (workspace: Workspace) => workspace.area.release();

/** A file name that stays inside its directory: no separators, never `.` or `..`. */
const safeName = (name: string) => {
  const base = basename(name.replace(/\\/g, '/'));
  return base === '' || base === '.' || base === '..' ? '_' : base;
};
