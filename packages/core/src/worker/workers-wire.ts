import * as v from 'valibot';
import type { WorkerRecord } from '../store/workers.js';

/** `GET /api/v1/workers` (docs/run-api.md, "List workers"): the live workers. */
export const WorkerListSchema = v.object({
  workers: v.array(
    v.object({
      id: v.string(),
      host: v.pipe(v.string(), v.description('The host runs name in config.worker_host to go to this worker.')),
      unrouted: v.pipe(v.boolean(), v.description('Whether it also takes runs that name no worker_host.')),
      capacity: v.pipe(v.number(), v.integer(), v.description('Runs it executes at once.')),
      runs_held: v.pipe(v.number(), v.integer(), v.description("Runs it holds now, every team's.")),
      runs: v.pipe(v.array(v.string()), v.description("The ids of the caller's team's runs it holds now.")),
      executor: v.string(),
      version: v.pipe(v.string(), v.description('The agentrun version it runs.')),
      started_at: v.string(),
      last_seen_at: v.string(),
    }),
  ),
});
export type WorkerList = v.InferOutput<typeof WorkerListSchema>;

/** A worker as a team sees it: every team sees how many runs it holds, only its own run ids. */
export const toWorkerItem = (w: WorkerRecord, teamUid: string): WorkerList['workers'][number] => ({
  id: w.id,
  host: w.host,
  unrouted: w.unrouted,
  capacity: w.capacity,
  runs_held: w.runs.length,
  runs: w.runs.filter((r) => r.teamUid === teamUid).map((r) => r.id),
  executor: w.executor,
  version: w.version,
  started_at: w.startedAt,
  last_seen_at: w.lastSeenAt,
});
