import * as m0001 from './0001_runs.js';
import * as m0002 from './0002_control_plane.js';
import * as m0003 from './0003_ingress.js';
import * as m0004 from './0004_ingress_functions.js';
import * as m0005 from './0005_ordered_filters.js';
import * as m0006 from './0006_pinned_search_path.js';
import * as m0007 from './0007_notifications.js';
import * as m0008 from './0008_run_events.js';
import * as m0009 from './0009_definition_sets.js';
import * as m0010 from './0010_api_key_resource.js';
import * as m0011 from './0011_audit.js';
import * as m0012 from './0012_team_repositories.js';
import * as m0013 from './0013_environments.js';
import * as m0014 from './0014_factory_sources.js';
import * as m0016 from './0016_run_ancestry_usage.js';
import * as m0017 from './0017_schedules.js';
import * as m0018 from './0018_artifacts.js';
import * as m0019 from './0019_callbacks.js';
import * as m0020 from './0020_inbox_reads.js';
import * as m0021 from './0021_agent_identities.js';
import * as m0022 from './0022_artifact_callbacks.js';
import * as m0023 from './0023_delivery_evaluation.js';
import * as m0024 from './0024_run_event_counter.js';
import * as m0025 from './0025_lean_run_indexes.js';
import * as m0026 from './0026_batched_accepts.js';
import * as m0027 from './0027_lean_run_writes.js';
import * as m0029 from './0029_runs_inserted_per_statement.js';
import * as m0030 from './0030_rate_window_counts.js';
import * as m0031 from './0031_set_based_accepts.js';
import * as m0032 from './0032_deferred_notifications.js';
import * as m0033 from './0033_tool_events.js';

/**
 * A schema change. Migrations are append-only: never edit one that has shipped; add the next.
 *
 * Writing one that is right in any schema (the store's `schema` option, docs/production.md):
 * - `migrate()` runs each `up` with `SET LOCAL search_path TO <agentrun's schema>, pg_temp`, so
 *   write names unqualified (`CREATE TABLE runs_notes …`, `CREATE TRIGGER … ON runs`): they are
 *   created in, and resolved against, agentrun's schema whatever the host's own path. Never name
 *   a schema (`agentrun.`, `public.`) in a migration.
 * - Every function (trigger functions too) must pin its path with `SET search_path FROM CURRENT`
 *   in its `CREATE FUNCTION`: PL/pgSQL resolves names when it runs, under the caller's
 *   `search_path` (the host's), and `FROM CURRENT` records agentrun's schema at creation
 *   (see 0006). test/schema.test.ts fails on a function without it. Inside a function,
 *   `current_schema()` is then agentrun's schema, e.g. for a NOTIFY channel of its own.
 * - The store's TypeScript names tables through tables.ts (`${t.runs}`); add a new table there.
 * - Regenerate schema.txt (`npm run schema:dump -w @agentrun/store-postgres`).
 */
export interface Migration {
  /** Sorts in application order: a zero-padded number and a name. */
  id: string;
  up: string;
}

export const MIGRATIONS: readonly Migration[] = [
  { id: '0001_runs', up: m0001.up },
  { id: '0002_control_plane', up: m0002.up },
  { id: '0003_ingress', up: m0003.up },
  { id: '0004_ingress_functions', up: m0004.up },
  { id: '0005_ordered_filters', up: m0005.up },
  { id: '0006_pinned_search_path', up: m0006.up },
  { id: '0007_notifications', up: m0007.up },
  { id: '0008_run_events', up: m0008.up },
  { id: '0009_definition_sets', up: m0009.up },
  { id: '0010_api_key_resource', up: m0010.up },
  { id: '0011_audit', up: m0011.up },
  { id: '0012_team_repositories', up: m0012.up },
  { id: '0013_environments', up: m0013.up },
  { id: '0014_factory_sources', up: m0014.up },
  // 0015 was kept for work that needed none; ids only need to sort.
  { id: '0016_run_ancestry_usage', up: m0016.up },
  { id: '0017_schedules', up: m0017.up },
  { id: '0018_artifacts', up: m0018.up },
  { id: '0019_callbacks', up: m0019.up },
  { id: '0020_inbox_reads', up: m0020.up },
  { id: '0021_agent_identities', up: m0021.up },
  { id: '0022_artifact_callbacks', up: m0022.up },
  { id: '0023_delivery_evaluation', up: m0023.up },
  { id: '0024_run_event_counter', up: m0024.up },
  { id: '0025_lean_run_indexes', up: m0025.up },
  { id: '0026_batched_accepts', up: m0026.up },
  { id: '0027_lean_run_writes', up: m0027.up },
  // 0028 is kept for another branch's migration; ids only need to sort.
  { id: '0029_runs_inserted_per_statement', up: m0029.up },
  { id: '0030_rate_window_counts', up: m0030.up },
  { id: '0031_set_based_accepts', up: m0031.up },
  { id: '0032_deferred_notifications', up: m0032.up },
  { id: '0033_tool_events', up: m0033.up },
];
