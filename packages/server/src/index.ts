export { BOOTSTRAP_PRINCIPAL, type BootstrapKey } from './bootstrap-key.js';
export type { WorkerHostOptions } from './process-parts.js';
export { type ReferenceServer, type ReferenceServerOptions, startReferenceServer } from './server.js';
export { settingsMarkdown } from './settings-docs.js';
export { startWorkerProcess, type WorkerProcess, type WorkerProcessOptions } from './worker-process.js';
