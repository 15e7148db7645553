export { claudeHarness } from './claude/claude-harness.js';
export { codexHarness } from './codex/codex-harness.js';
export { geminiHarness } from './gemini/gemini-harness.js';
export type { Harness, HarnessEvent, HarnessParser, HarnessTurn, HarnessType, Invocation, McpServer } from './harness.js';
export { HARNESS_TYPES, MAX_TOOL_TEXT } from './harness.js';
export { HARNESSES } from './registry.js';
