// The shutdown helper for the server Express's app.listen() returns (docs/operations.md, "Graceful shutdown").
export { type GracefulShutdownOptions, type ShutdownReport, shutdownGracefully } from '@agentrun/node';
export { type AgentrunExpressOptions, type AgentrunMiddleware, agentrunExpress, type ExpressRequestLike } from './middleware.js';
