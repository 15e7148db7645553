export type { BubblewrapSandbox, Containment, KeepWorkspaces, ProcessExecutorOptions, WorkspaceRepositories } from './options.js';
export { processExecutor } from './process-executor.js';
