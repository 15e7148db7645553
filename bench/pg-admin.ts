import pg from 'pg';

/** The server the Postgres bench groups use: DATABASE_URL, else the local one tests use. */
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** A URL with its password masked, for printing. */
export const redact = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]+@/, '//$1:***@');

/** An admin connection for creating scratch schemas, or `undefined` (said on stdout) when no server answers. */
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
