import type { AgentRunClient, RunDurationGrouping, StatsRange } from '@agentrun/client';

/**
 * The overview's reads: one aggregate per chart from the stats API (docs/management-api.md,
 * "Stats"), and the live workers.
 */
export const overviewReads = (client: AgentRunClient) => ({
  runs: (range: StatsRange) => client.stats.runs({ range }),
  durations: (range: StatsRange, by: RunDurationGrouping) => client.stats.runDurations({ range, by }),
  deliveries: (range: StatsRange) => client.stats.deliveries({ range }),
  queue: () => client.stats.queue(),
  callbacks: (range: StatsRange) => client.stats.callbacks({ range }),
  workers: () => client.workers.list(),
});
