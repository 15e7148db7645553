import type { Tx } from './db.js';
import { prepared, type Statements } from './statements.js';

/**
 * One statement of the webhook ingress's hot path (ingress.ts), its SQL text written once per
 * store and sent through the store's statements (statements.ts): a named prepared statement on
 * the `pg` pool, unnamed in a transaction, through a `Kysely` instance, or with the store's
 * `preparedStatements: false` (docs/production.md, "Through a connection pooler"). Its text names its
 * columns (never `*`), so a column a later migration adds cannot change its result.
 */
export type PreparedQuery<R> = (values: readonly unknown[], executor?: Tx) => Promise<R[]>;

export function preparer(statements: Statements) {
  return <R>(text: string): PreparedQuery<R> => {
    const statement = prepared(text);
    return (values, executor) => statements.run<R>(statement, values, executor);
  };
}

/** `"schema"."name"` for SQL built as text; the schema was checked as a plain identifier (schema-name.ts). */
export const qualified = (schema: string, name: string): string => `"${schema}"."${name}"`;
