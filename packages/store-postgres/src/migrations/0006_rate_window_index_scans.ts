/**
 * The rate admissions read a key's expired events by index scans, never by bitmap scans.
 *
 * An admission deletes the events that left its key's window (migrations/baseline/ingress.ts,
 * `agentrun_rate_admit`; 0004's `agentrun_accept_deliveries`). The index entries of the events it
 * deleted stay until a vacuum, and the next admission of the key walks them again from the start
 * of its range. A plain index scan marks each one dead the first time it finds its row gone (once
 * no transaction can still see it), and every later scan steps over it in the index alone; a
 * bitmap scan, which the planner prefers for such a range, never marks them, and visits the heap
 * page of every deleted event at every admission until the vacuum. On an ingress whose windows
 * keep moving that made the batched accept twice to three times as costly (bench/README.md, "What
 * was tried": index scans for the rate window).
 */
export const RATE_ADMIT_SETTINGS = `
ALTER FUNCTION agentrun_rate_admit(text, integer, timestamptz, timestamptz) SET enable_bitmapscan = off;
`;

export const ACCEPT_DELIVERIES_SETTINGS = `
ALTER FUNCTION agentrun_accept_deliveries(text[], text[], text[], text[], text[], integer[], timestamptz[], bytea, integer[],
  text[], integer[], timestamptz[], timestamptz[], jsonb) SET enable_bitmapscan = off;
`;

export const up = RATE_ADMIT_SETTINGS + ACCEPT_DELIVERIES_SETTINGS;
