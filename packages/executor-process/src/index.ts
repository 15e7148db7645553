export type { BubblewrapSandbox, Containment, KeepWorkspaces, ProcessExecutorOptions } from './options.js';
export { processExecutor } from './process-executor.js';
