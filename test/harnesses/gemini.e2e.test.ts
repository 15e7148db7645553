import { GEMINI } from './support/cli-profiles.js';
import { describeHarness } from './support/harness-suite.js';

// The real Gemini CLI (@google/gemini-cli, pinned) through the run API: docs/harnesses.md, "Testing".
describeHarness(GEMINI);
