import type { ArtifactService } from '../artifacts/artifact-service.js';
import type { AgentRunEvents } from '../events.js';
import type { Executor } from '../executor/executor.js';
import type { RunRecord } from '../run/record.js';
import type { RunService } from '../run/run-service.js';
import type { Store } from '../store/store.js';
import type { WorkerTelemetry } from '../telemetry/execution-span.js';
import type { Clock } from '../util/clock.js';
import type { FollowupInbox } from './followup-inbox.js';
import type { EnvironmentResolver, HarnessAuthResolver } from './run-environment.js';

/**
 * One run this worker executes (docs/executors.md, "Worker parts"): what its parts share about it.
 */
export interface Execution {
  /**
   * The run as this worker last wrote it (claimed, started, its own reports): its writes are
   * compare-and-sets on this state, so none needs a read first; when another write came first
   * they read the run then (run/apply-event.ts, `current`).
   */
  run: RunRecord;
  controller: AbortController;
  /** Its follow-ups, each delivered once, in order, and only to a listener (followup-inbox.ts). */
  inbox: FollowupInbox;
  /** The last of its context's writes, made one at a time in order (execution-context.ts), and how many are not done. */
  writes: Promise<unknown>;
  queuedWrites: number;
  done: Promise<void>;
  /**
   * Called once its outcome is written, before the read of follow-ups that came too late
   * (execute-run.ts): from then on it no longer holds a place of `concurrency` (runs-part.ts).
   */
  outcomeWritten?: () => void;
}

/**
 * What the run-executing parts of one worker share: its options, resolved once in `createWorker`
 * (worker.ts), and its executions by run id.
 */
export interface RunWorkContext {
  id: string;
  /** The runs it claims: its host's, and unrouted ones unless `unrouted` is false (worker-hosts.ts). */
  host: string;
  unrouted: boolean;
  service: RunService;
  store: Store;
  events: AgentRunEvents;
  clock: Clock;
  executor: Executor;
  concurrency: number;
  leaseMs: number;
  heartbeatMs: number;
  sessionLink: ((runId: string) => string) | undefined;
  telemetry: WorkerTelemetry | undefined;
  resolveEnvironment: EnvironmentResolver | undefined;
  resolveHarnessAuth: HarnessAuthResolver | undefined;
  artifacts: ArtifactService | undefined;
  /** The worker's own errors, outages reported once every 10 s (worker.ts). */
  onError: (error: unknown) => void;
  /** Runs executing now, by id. */
  running: Map<string, Execution>;
}
