import * as m0001 from './0001_baseline.js';
import * as m0002 from './0002_environment_containers.js';
import * as m0003 from './0003_worker_hosts.js';
import * as m0004 from './0004_delivery_details.js';
import * as m0005 from './0005_stats_rollups.js';
import * as m0006 from './0006_rate_window_index_scans.js';

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
 *   `search_path` (the host's), and `FROM CURRENT` records agentrun's schema at creation.
 *   test/schema.test.ts fails on a function without it. Inside a function, `current_schema()` is
 *   then agentrun's schema, e.g. for a NOTIFY channel of its own.
 * - The store's TypeScript names tables through tables.ts (`${t.runs}`); add a new table there.
 * - Regenerate schema.txt (`npm run schema:dump -w @agentrun/store-postgres`), and statements.sql
 *   (`npm run statements:dump -w @agentrun/store-postgres`) when a function it shows changes.
 */
export interface Migration {
  /** Sorts in application order: a zero-padded number and a name. */
  id: string;
  up: string;
}

export const MIGRATIONS: readonly Migration[] = [
  { id: '0001_baseline', up: m0001.up },
  { id: '0002_environment_containers', up: m0002.up },
  { id: '0003_worker_hosts', up: m0003.up },
  { id: '0004_delivery_details', up: m0004.up },
  { id: '0005_stats_rollups', up: m0005.up },
  { id: '0006_rate_window_index_scans', up: m0006.up },
];
