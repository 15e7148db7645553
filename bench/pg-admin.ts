import pg from 'pg';

/** The server the Postgres bench groups use: DATABASE_URL, else the local one tests use. */
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

/**
 * A scratch schema name for one bench run: the store's `schema` option (its `migrate()` creates
 * the schema); the bench drops it at the end, even on failure.
 */
export const scratchSchema = (prefix: string) => `${prefix}_${Math.random().toString(36).slice(2, 10)}`;

/** A URL with its password masked, for printing. */
export const redact = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]+@/, '//$1:***@');

/** An admin connection for dropping scratch schemas, or `undefined` (said on stdout) when no server answers. */
export async function connectAdmin(baseUrl: string): Promise<pg.Client | undefined> {
  const admin = new pg.Client({ connectionString: baseUrl, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
    return admin;
  } catch (error) {
    console.log(`skipped: no PostgreSQL at ${redact(baseUrl)} (${(error as Error).message}); set DATABASE_URL`);
    return undefined;
  }
}

/**
 * Run `measure` in a scratch schema of the database at DATABASE_URL (else the local default), and
 * drop the schema afterwards, whatever happened. No figures when no server answers.
 */
export async function inScratchSchema(
  prefix: string,
  measure: (baseUrl: string, schema: string) => Promise<Record<string, number>>,
): Promise<Record<string, number>> {
  const baseUrl = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const admin = await connectAdmin(baseUrl);
  if (!admin) return {};
  const schema = scratchSchema(prefix);
  try {
    console.log(`schema ${schema} on ${redact(baseUrl)}`);
    return await measure(baseUrl, schema);
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}
