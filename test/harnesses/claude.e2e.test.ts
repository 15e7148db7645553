import { CLAUDE } from './support/cli-profiles.js';
import { describeHarness } from './support/harness-suite.js';

// The real Claude Code (@anthropic-ai/claude-code, pinned) through the run API: docs/harnesses.md, "Testing".
describeHarness(CLAUDE);
