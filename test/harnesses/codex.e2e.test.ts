import { CODEX } from './support/cli-profiles.js';
import { describeHarness } from './support/harness-suite.js';

// The real Codex CLI (@openai/codex, pinned) through the run API: docs/harnesses.md, "Testing".
describeHarness(CODEX);
