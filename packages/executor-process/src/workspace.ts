import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { ExecutionInput, RunItem } from '@agentrun/core';

/** A run's directory and the files the agent reads (docs/executors.md, "The workspace"). */
export interface Workspace {
  dir: string;
  promptFile: string;
  mcpConfigFile: string;
  runFile: string;
  attachmentsDir: string;
}

/**
 * A fresh directory under `root` holding `prompt.md`, `run.json`, `mcp.json` and
 * `attachments/<file_name>` for every attachment of the run.
 */
export async function createWorkspace(root: string, input: ExecutionInput): Promise<Workspace> {
  await mkdir(root, { recursive: true });
  const dir = await mkdtemp(join(root, `${safeName(input.run.run_id)}-${input.attempt}-`));
  const workspace: Workspace = {
    dir,
    promptFile: join(dir, 'prompt.md'),
    mcpConfigFile: join(dir, 'mcp.json'),
    runFile: join(dir, 'run.json'),
    attachmentsDir: join(dir, 'attachments'),
  };
  try {
    await writeFiles(workspace, input);
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
  for (const { file_name } of input.run.attachments ?? []) {
    const data = await input.readAttachment(file_name);
    if (data === undefined) throw new Error(`attachment ${JSON.stringify(file_name)} of run ${input.run.run_id} is missing from the store`);
    await writeFile(join(workspace.attachmentsDir, safeName(file_name)), data);
  }
}

/**
 * The prompt as the agent reads it: the base prompt, then the skill to use, then the prompt,
 * separated by blank lines; parts that are absent are left out.
 */
function promptText(run: RunItem): string {
  const skill = run.agent_skill;
  const parts = [
    run.agent_config?.base_prompt,
    skill ? `Use the skill \`${skill.name}\` (${skill.full_path ? `${skill.spec}, ${skill.full_path}` : skill.spec}).` : undefined,
    run.prompt,
  ].filter((p): p is string => p !== undefined && p !== '');
  return `${parts.join('\n\n')}\n`;
}

/** Bytes in the directory's files, walking it; files that vanish meanwhile count 0. */
export async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    total += await stat(join(entry.parentPath, entry.name)).then(
      (s) => s.size,
      () => 0,
    );
  }
  return total;
}

export const removeWorkspace = (workspace: Workspace) => rm(workspace.dir, { recursive: true, force: true });

/** A file name that stays inside its directory: no separators, never `.` or `..`. */
const safeName = (name: string) => {
  const base = basename(name.replace(/\\/g, '/'));
  return base === '' || base === '.' || base === '..' ? '_' : base;
};
