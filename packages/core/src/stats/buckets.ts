import { STATS_RANGES, type StatsRange } from './ranges.js';

/**
 * The buckets of a stats read: `count` buckets of `stepMs`, each starting at a multiple of the
 * step since the Unix epoch, the last one holding `now` (docs/management-api.md, "Stats"). Pure:
 * both stores and the dashboard count into the same buckets.
 */
export interface StatsWindow {
  stepMs: number;
  /** The first bucket's start (ms since the epoch). */
  fromMs: number;
  /** The last bucket's end, exclusive: `fromMs + count * stepMs`, after `now`. */
  toMs: number;
  count: number;
}

export function statsWindow(range: StatsRange, nowMs: number): StatsWindow {
  const { seconds, stepSeconds } = STATS_RANGES[range];
  const stepMs = stepSeconds * 1000;
  const count = seconds / stepSeconds;
  const toMs = (Math.floor(nowMs / stepMs) + 1) * stepMs;
  return { stepMs, fromMs: toMs - count * stepMs, toMs, count };
}

/** The bucket of `atMs` in the window, or -1 when it falls outside. */
export function bucketIndex(window: StatsWindow, atMs: number): number {
  if (atMs < window.fromMs || atMs >= window.toMs) return -1;
  return Math.floor((atMs - window.fromMs) / window.stepMs);
}

/** Each bucket's start, ms since the epoch, oldest first. */
export const bucketStarts = (window: StatsWindow): number[] =>
  Array.from({ length: window.count }, (_, i) => window.fromMs + i * window.stepMs);
