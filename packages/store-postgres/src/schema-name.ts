/**
 * The schema agentrun's tables, indexes, functions and migrations table live in: its own, beside a
 * host's tables rather than among them (docs/production.md, "Where the tables go: the `schema`
 * option"). Every statement names it; nothing depends on a connection's `search_path`.
 */
export const DEFAULT_SCHEMA = 'agentrun';

/**
 * A plain, unquoted SQL identifier as PostgreSQL folds it: lower-case letters, digits and `_`, not
 * starting with a digit, at most 63 bytes (NAMEDATALEN - 1). Upper case is refused rather than
 * quoted: `Agentrun` unquoted in psql is `agentrun`, so a quoted `"Agentrun"` would be a schema
 * nobody finds by typing its name.
 */
const PLAIN_IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** The `schema` option, checked: `DEFAULT_SCHEMA` when absent; a TypeError naming the rule when unusable. */
export function schemaOption(value: unknown, where: string): string {
  if (value === undefined) return DEFAULT_SCHEMA;
  if (typeof value !== 'string' || !PLAIN_IDENTIFIER.test(value)) {
    throw new TypeError(
      `${where}: schema must be a plain SQL identifier (lower-case letters, digits and _, not starting with a digit, at most 63 characters), got ${JSON.stringify(value)}`,
    );
  }
  // CREATE SCHEMA refuses pg_*; information_schema belongs to the server.
  if (value.startsWith('pg_') || value === 'information_schema') {
    throw new TypeError(`${where}: schema ${JSON.stringify(value)} is reserved by PostgreSQL; choose another name`);
  }
  return value;
}
