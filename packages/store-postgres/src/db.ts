import type { Kysely, Transaction } from 'kysely';

/**
 * The store writes SQL with Kysely's `sql` templates and maps rows itself (see rows.ts), so it
 * uses Kysely without a table schema type; hosts may pass an instance typed for their own tables.
 */
// biome-ignore lint/suspicious/noExplicitAny: untyped by design, see above.
export type Db = Kysely<any>;
// biome-ignore lint/suspicious/noExplicitAny: as above.
export type Tx = Transaction<any>;
