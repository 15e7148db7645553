/**
 * Fewer indexes on `runs` (docs/production.md, "What each index serves"). Every index is written
 * on every run INSERT and on every UPDATE that is not HOT; with 23 of them, inserting a run into
 * its indexes was most of a delivery's database time.
 *
 * Kept: one index per filter people combine, on the default sort (`updated_at`: team, state,
 * name, creator, source, factory, automation, schedule); the team's `created_at` index (the walk
 * that sees every run once); the worker's (queue, leases); and three that answer a lookup in one
 * probe: the newest run of a skill and of an environment (now partial: a run without either costs
 * them nothing) and the inbox (a creator's factory runs, newest first; partial, it replaces the
 * creator's `created_at` index for every run).
 *
 * Dropped: the `created_at` twin of each filter (a filtered `created_at` list walks
 * `runs_team_created` with the filter when the value is common, or reads the filter's
 * `updated_at` range and sorts it when rare), and the model filter's pair (few values, each
 * common: the team's index, filtered, finds a page).
 */
export const up = `
DROP INDEX runs_state_created;
DROP INDEX runs_name_created;
DROP INDEX runs_model_updated;
DROP INDEX runs_model_created;
DROP INDEX runs_creator_created;
DROP INDEX runs_source_created;
DROP INDEX runs_environment_updated;
DROP INDEX runs_skill_updated;
DROP INDEX runs_factory_created;
DROP INDEX runs_automation_created;

DROP INDEX runs_environment_created;
CREATE INDEX runs_environment_created ON runs (team_uid, environment_id, created_at, id) WHERE environment_id IS NOT NULL;
DROP INDEX runs_skill_created;
CREATE INDEX runs_skill_created ON runs (team_uid, skill_spec, created_at, id) WHERE skill_spec IS NOT NULL;
CREATE INDEX runs_inbox ON runs (team_uid, creator_uid, created_at, id) WHERE factory_uid IS NOT NULL;
`;
