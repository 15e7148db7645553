export type { KeepWorkspaces, ProcessExecutorOptions } from './options.js';
export { processExecutor } from './process-executor.js';
