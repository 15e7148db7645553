import { createAgentRun } from '@agentrun/core';
import { testPrincipal } from '@agentrun/core/testing';
import { createMemoryStore } from '@agentrun/store-memory';
import { processExecutor } from '../../src/index.js';
import { EXAMPLE_AGENT, recording } from './agents.js';

// A worker process for the "worker SIGKILL leaves no orphan" test: it runs the example agent on
// the prompt given as its argument and prints every message it shows, one per line.
const [workspaceRoot, prompt] = process.argv.slice(-2) as [string, string];
// The process group's containment (the test reads host pids); AGENTRUN_TEST_CONTAINMENT may choose another.
const containment = (process.env.AGENTRUN_TEST_CONTAINMENT ?? 'process-group') as 'process-group' | 'pid-namespace';
const executor = recording(processExecutor({ command: process.execPath, args: [EXAMPLE_AGENT], workspaceRoot, containment }), (message) =>
  console.log(message),
);
const agentrun = createAgentRun({ store: createMemoryStore(), executor });
await agentrun.services.runs.create(testPrincipal(), { prompt });
agentrun.worker({ pollIntervalMs: 20 }).start();
