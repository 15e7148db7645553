import { type RawBuilder, sql } from 'kysely';

/** agentrun's tables (every migration's), by the name the SQL uses. */
export const TABLE_NAMES = [
  'runs',
  'run_followups',
  'run_attachments',
  'run_events',
  'idempotency_keys',
  'api_keys',
  'factories',
  'team_secrets',
  'webhooks',
  'automations',
  'definition_sets',
  'deliveries',
  'rate_limit_events',
  'rate_limit_counts',
  'audit_events',
  'team_repositories',
  'environments',
  'factory_sources',
  'factory_source_applies',
  'schedules',
  'schedule_fires',
  'callback_endpoints',
  'callback_deliveries',
  'callback_attempts',
  'artifacts',
  'artifact_blobs',
  'inbox_reads',
  'agent_identities',
  'workers',
  'stats_run_deltas',
  'stats_delivery_deltas',
  'stats_run_counts',
  'stats_run_durations',
  'stats_delivery_counts',
  'agentrun_migrations',
] as const;

type TableName = (typeof TABLE_NAMES)[number];

/**
 * Schema-qualified references for the store's SQL: `${t.runs}` renders `"agentrun"."runs"`, and
 * `${t.fn('agentrun_rate_admit')}` the function of that name. Every statement names its schema
 * this way, so a host's `search_path` (and a host table of the same name) never decides which
 * table a statement reads (docs/production.md, "Where the tables go: the `schema` option").
 */
export type Tables = Readonly<Record<TableName, RawBuilder<unknown>>> & {
  readonly schema: string;
  fn(name: string): RawBuilder<unknown>;
};

/** The references of a checked schema name (see schema-name.ts); built once per store. */
export function tablesIn(schema: string): Tables {
  const refs = Object.fromEntries(TABLE_NAMES.map((name) => [name, sql.table(`${schema}.${name}`)])) as Record<
    TableName,
    RawBuilder<unknown>
  >;
  return { ...refs, schema, fn: (name) => sql.id(schema, name) };
}
