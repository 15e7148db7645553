import type { StatsRange } from '@agentrun/client';

/** The overview's words for its numbers (docs/dashboard.md, "Overview"). */

export const RANGE_WORDS: Record<StatsRange, string> = { '1h': 'the last hour', '24h': 'the last 24 hours', '7d': 'the last 7 days' };

/** A duration as people read it: `850 ms`, `1.2 s`, `3.4 min`, `2.1 h`. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${(ms / 60_000).toFixed(1)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/** How long ago `iso` was, rounded down to whole units: `45 s`, `3 min`, `2 h`, `1 d`. */
export function formatAge(iso: string, nowMs: number): string {
  const s = Math.max(0, Math.floor((nowMs - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86_400)} d`;
}
