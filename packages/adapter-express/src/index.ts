export { type AgentrunExpressOptions, type AgentrunMiddleware, agentrunExpress, type ExpressRequestLike } from './middleware.js';
