export type {
  BubblewrapSandbox,
  Containment,
  DiskLimit,
  KeepWorkspaces,
  ProcessExecutorOptions,
  WorkspaceRepositories,
} from './options.js';
export { CONTAINMENTS, DISK_LIMITS, KEEP_WORKSPACES } from './options.js';
export { processExecutor } from './process-executor.js';
