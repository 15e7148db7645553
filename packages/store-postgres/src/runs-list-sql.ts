import type { RunFilter, RunListQuery } from '@agentrun/core/store';
import { type RawBuilder, sql } from 'kysely';
import type { Tables } from './tables.js';

/**
 * `runs.list` as one SQL statement. Each equality filter people combine has a keyset index on
 * `(team_uid, <column>, updated_at, id)` (the default sort), the team one on `created_at` too
 * (docs/production.md, "What each index serves"), and the position is a row comparison on the
 * last two, so Postgres reads the index from the cursor on and stops after `limit` rows.
 *
 * Several states cannot share one ordered index range, so they become one ordered, limited
 * branch per state under UNION ALL, merged by the outer ORDER BY: the cost stays
 * `states × limit` rows however many runs match.
 */
export function listRunsSql(t: Tables, q: RunListQuery): RawBuilder<unknown> {
  const order = sql`${orderBy(q)} LIMIT ${q.limit}`;
  const states = q.filter.states ?? [];

  if (states.length > 1) {
    const branches = [...new Set(states)].map(
      (state) => sql`(SELECT * FROM ${t.runs} WHERE ${sql.join(conditions(t, q, state), sql` AND `)} ${order})`,
    );
    return sql`SELECT * FROM (${sql.join(branches, sql` UNION ALL `)}) AS page ${order}`;
  }
  return sql`SELECT * FROM ${t.runs} WHERE ${sql.join(conditions(t, q, states[0]), sql` AND `)} ${order}`;
}

/**
 * The sort column. Text orders compare under `COLLATE "C"` (code point order), which is core's
 * `compareCodePoints`, whatever the database's collation; `id` is `COLLATE "C"` already.
 */
const sortColumn = (q: RunListQuery): RawBuilder<unknown> => {
  switch (q.sortBy) {
    case 'title':
      return sql`title COLLATE "C"`;
    case 'agent':
      return sql`skill_spec COLLATE "C"`;
    default:
      return sql.ref(q.sortBy);
  }
};

/** Core's `comparePositions`: for `agent`, runs without a skill last in either direction. */
function orderBy(q: RunListQuery): RawBuilder<unknown> {
  const dir = sql.raw(q.order === 'asc' ? 'ASC' : 'DESC');
  const nullsLast = q.sortBy === 'agent' ? sql`(skill_spec IS NULL) ASC, ` : sql``;
  return sql`ORDER BY ${nullsLast}${sortColumn(q)} ${dir}, id ${dir}`;
}

/** Rows strictly after the keyset position, in the query's order. */
function afterPosition(q: RunListQuery, after: NonNullable<RunListQuery['after']>): RawBuilder<unknown> {
  const cmp = sql.raw(q.order === 'asc' ? '>' : '<');
  if (q.sortBy === 'updated_at' || q.sortBy === 'created_at') {
    return sql`(${sql.ref(q.sortBy)}, id) ${cmp} (${after.value}::timestamptz, ${after.id})`;
  }
  const column = sortColumn(q);
  if (after.value === null) return sql`(skill_spec IS NULL AND id ${cmp} ${after.id})`;
  const strictly = sql`(${column}, id) ${cmp} (${after.value}, ${after.id})`;
  // After a run with a skill come the rest of those with one, then every run without one.
  return q.sortBy === 'agent' ? sql`(skill_spec IS NULL OR ${strictly})` : strictly;
}

function conditions(t: Tables, q: RunListQuery, state: string | undefined): RawBuilder<unknown>[] {
  const f: RunFilter = q.filter;
  const where: RawBuilder<unknown>[] = [sql`team_uid = ${q.teamUid}`];
  if (state !== undefined) where.push(sql`state = ${state}`);
  const eq = (column: string, value: string | undefined) => {
    if (value !== undefined) where.push(sql`${sql.ref(column)} = ${value}`);
  };
  eq('config_name', f.name);
  eq('model_id', f.modelId);
  eq('creator_uid', f.creatorUid);
  eq('source', f.source);
  eq('environment_id', f.environmentId);
  eq('skill_spec', f.skillSpec);
  eq('factory_uid', f.factoryUid);
  eq('automation_id', f.automationId);
  eq('session_id', f.sessionId);
  eq('conversation_id', f.conversationId);
  if (f.withFactory) where.push(sql`factory_uid IS NOT NULL`);
  eq('schedule_id', f.scheduleId);
  if (f.createdAfter !== undefined) {
    where.push(sql`created_at > ${f.createdAfter}::timestamptz`);
    // Implied (updated_at >= created_at always), and it bounds the updated_at index range.
    if (q.sortBy === 'updated_at') where.push(sql`updated_at > ${f.createdAfter}::timestamptz`);
  }
  if (f.createdBefore !== undefined) where.push(sql`created_at < ${f.createdBefore}::timestamptz`);
  if (f.updatedAfter !== undefined) where.push(sql`updated_at > ${f.updatedAfter}::timestamptz`);
  if (f.ancestorRunId !== undefined) where.push(sql`ancestor_run_ids @> ARRAY[${f.ancestorRunId}]::text[]`);
  if (f.artifactType !== undefined) {
    where.push(sql`EXISTS (SELECT 1 FROM ${t.artifacts} a WHERE a.run_id = ${t.runs}.id AND a.artifact_type = ${f.artifactType})`);
  }
  if (f.q !== undefined) {
    // strpos, not LIKE: `%` and `_` in the search text are literal, as in core's semantics.
    const needle = sql`lower(${f.q})`;
    where.push(
      sql`(strpos(lower(title), ${needle}) > 0 OR strpos(lower(prompt), ${needle}) > 0 OR strpos(lower(coalesce(skill_spec, '')), ${needle}) > 0)`,
    );
  }
  if (q.asOf !== undefined && q.sortBy === 'updated_at') where.push(sql`updated_at <= ${q.asOf}::timestamptz`);
  if (q.after) where.push(afterPosition(q, q.after));
  return where;
}
