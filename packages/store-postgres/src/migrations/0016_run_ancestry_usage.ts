/**
 * Runs started by runs, and what a run cost (issue 23, docs/run-api.md "The run: `RunItem`"):
 * `ancestor_run_ids`, the parent, its parent and so on (nearest first, at most 32, copied from the
 * parent when the run is created), matched by the list's `ancestor_run_id`; `request_usage`, what
 * the agent reported (bounded numbers, models/request-usage.ts). Runs from before have neither.
 * No index: the filter is one team's runs, read in a keyset order (issue 24 revisits indexes).
 */
export const up = `
ALTER TABLE runs ADD COLUMN ancestor_run_ids text[] NOT NULL DEFAULT '{}';
ALTER TABLE runs ADD COLUMN request_usage jsonb;
`;
