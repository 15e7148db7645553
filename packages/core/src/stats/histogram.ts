/**
 * Run durations as a log-scale histogram (docs/management-api.md, "Stats"): bucket 0 holds
 * [0, 100 ms), bucket i holds [BOUNDS[i-1], BOUNDS[i]), and the last holds BOUNDS[last] and
 * longer. Four buckets per doubling, so a percentile read as the bucket's geometric middle is off
 * by at most 2^(1/8) - 1 ≈ 9.1 % of the true value (past 100 ms and under the last bound, about
 * 19 days). Both stores count into these very buckets (the PostgreSQL store's triggers carry the
 * list as a literal that a test compares), and core computes p50/p95 from them, so every store
 * gives the same answer.
 */

/** Bucket bounds, ms: 100 ms × 2^(i/4), rounded, i = 0 … 96. */
export const DURATION_HISTOGRAM_BOUNDS_MS: readonly number[] = Array.from({ length: 97 }, (_, i) => Math.round(100 * 2 ** (i / 4)));

/** How many buckets a duration histogram has: one more than it has bounds. */
export const DURATION_HISTOGRAM_SIZE = DURATION_HISTOGRAM_BOUNDS_MS.length + 1;

/** The bucket a duration falls in: how many bounds are at or below it (PostgreSQL's `width_bucket`). */
export function durationBucket(ms: number): number {
  const bounds = DURATION_HISTOGRAM_BOUNDS_MS;
  let lo = 0;
  let hi = bounds.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((bounds[mid] as number) <= ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The value a bucket stands for: the geometric middle of its bounds (half the first bound for bucket 0, the last bound for the last). */
export function bucketValue(bucket: number): number {
  const bounds = DURATION_HISTOGRAM_BOUNDS_MS;
  if (bucket <= 0) return (bounds[0] as number) / 2;
  if (bucket >= bounds.length) return bounds[bounds.length - 1] as number;
  return Math.round(Math.sqrt((bounds[bucket - 1] as number) * (bounds[bucket] as number)));
}

/**
 * The `p`-th percentile (0 < p ≤ 1) of the durations counted in `counts` (indexed by bucket), by
 * nearest rank: the bucket holding the ⌈p·n⌉-th smallest, read as {@link bucketValue}. 0 for an
 * empty histogram.
 */
export function percentileFromHistogram(counts: readonly number[], p: number): number {
  let total = 0;
  for (const c of counts) total += c;
  if (total === 0) return 0;
  const rank = Math.max(1, Math.ceil(p * total));
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i] as number;
    if (seen >= rank) return bucketValue(i);
  }
  return bucketValue(counts.length - 1);
}
