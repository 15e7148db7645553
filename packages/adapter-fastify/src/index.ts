// The shutdown helper for app.server (docs/operations.md, "Graceful shutdown").
export { type GracefulShutdownOptions, type ShutdownReport, shutdownGracefully } from '@agentrun/node';
export { type AgentrunFastifyOptions, agentrunFastify } from './plugin.js';
