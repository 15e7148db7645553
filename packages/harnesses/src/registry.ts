import { claudeHarness } from './claude/claude-harness.js';
import { codexHarness } from './codex/codex-harness.js';
import { geminiHarness } from './gemini/gemini-harness.js';
import type { Harness, HarnessType } from './harness.js';

/** Every harness this package has, by the name a run's `config.harness.type` gives. */
export const HARNESSES: { readonly [K in HarnessType]?: Harness } = { claude: claudeHarness, codex: codexHarness, gemini: geminiHarness };
