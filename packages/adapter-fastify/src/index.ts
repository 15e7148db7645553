export { type AgentrunFastifyOptions, agentrunFastify } from './plugin.js';
