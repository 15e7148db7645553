import type { CreateRunInput } from '@agentrun/core/store';
import { type RawBuilder, sql } from 'kysely';
import { RUN_COLUMNS, RUN_JSON_COLUMNS, runToValues } from './rows.js';
import type { Tables } from './tables.js';

const isJsonColumn = (column: string | undefined) => column !== undefined && RUN_JSON_COLUMNS.has(column);

/**
 * The run and its attachments in one statement (atomic without a transaction): the
 * attachments insert selects from the inserted run, so neither exists without the other.
 * Shared by `runs.create` and `deliveries.accept`, so a run is written one way only.
 */
export function insertRunSql(t: Tables, input: CreateRunInput): RawBuilder<unknown> {
  const values = runToValues(input.run).map((v, i) => (isJsonColumn(RUN_COLUMNS[i]) ? sql`${v}::jsonb` : sql`${v}`));
  const insert = sql`INSERT INTO ${t.runs} (${sql.join(RUN_COLUMNS.map((c) => sql.ref(c)))}) VALUES (${sql.join(values)}) RETURNING *`;
  if (input.attachments.length === 0) return insert;
  const files = input.attachments.map((a) => sql`(${a.fileName}, ${a.mimeType}, ${Buffer.from(a.data)}::bytea)`);
  return sql`WITH inserted AS (${insert}),
    files AS (
      INSERT INTO ${t.run_attachments} (run_id, file_name, mime_type, data)
      SELECT inserted.id, f.file_name, f.mime_type, f.data
      FROM inserted, (VALUES ${sql.join(files)}) AS f (file_name, mime_type, data)
    )
    SELECT * FROM inserted`;
}
