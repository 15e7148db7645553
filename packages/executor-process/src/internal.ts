/**
 * The process executor's parts that another executor of this repository runs its agents with
 * (`@agentrun/executor-container`: docs/executors.md, "The container executor"): the workspace and
 * its environment's preparation, the agent's output read into the run's transcript under its
 * budget, the stops (cancel, timeout), the follow-ups' lines, an agent CLI's turns (docs/harnesses.md).
 * Not a stable public API.
 */
export { type AgentOutput, agentOutput } from './agent-output.js';
export { pipeAgent } from './agent-pipes.js';
export { type HarnessRunner, runHarness } from './harness-run.js';
export { harnessList, type InstalledHarness } from './installed-harnesses.js';
export { ENDPOINTS, type WorkspaceRepositories } from './options.js';
export { outputBudget } from './output-budget.js';
export { prepareEnvironment, type SetupRunner } from './prepare-environment.js';
export { followupLine } from './protocol.js';
export { exitOutcome, type RunStops, runStops, stoppedOutcome } from './run-stops.js';
export type { AgentPipes, AgentProcess } from './spawn-agent.js';
export { createWorkspace, removeWorkspace, type Workspace } from './workspace.js';
