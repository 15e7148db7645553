import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

/**
 * A Kysely dialect over an in-process PGlite: the store's SQL runs on it unchanged. PGlite is one
 * session, so the driver hands it to one Kysely connection at a time, in order: a transaction is
 * never interleaved with another caller's queries, and a second caller waits for the commit, as
 * it would for a pool's last connection (so a query on the Kysely made inside one of its own
 * transactions, rather than on the transaction, waits forever). (kysely-pglite exists, but
 * brings a CLI and a code generator.) `destroy()` closes the PGlite.
 */
export function pgliteDialect(pglite: PGlite): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createQueryCompiler: () => new PostgresQueryCompiler(),
    // biome-ignore lint/suspicious/noExplicitAny: Kysely's own signature, for any table types.
    createIntrospector: (db: Kysely<any>) => new PostgresIntrospector(db),
    createDriver: () => new PGliteDriver(pglite),
  };
}

class PGliteDriver implements Driver {
  /** Settles when the connection last handed out is released: the next one waits for it. */
  private turn: Promise<void> = Promise.resolve();
  /** Releases the connection handed out now, letting the next caller have it. */
  private release: (() => void) | undefined;
  private readonly connection: DatabaseConnection;

  constructor(private readonly pglite: PGlite) {
    this.connection = {
      executeQuery: async <R>(compiled: CompiledQuery): Promise<QueryResult<R>> => {
        if (compiled.parameters.length === 0) {
          // exec runs several statements at once (migrations); the last one's result is the answer.
          const last = (await pglite.exec(compiled.sql)).at(-1);
          return { rows: (last?.rows ?? []) as R[], ...affected(last?.affectedRows) };
        }
        const result = await pglite.query<R>(compiled.sql, [...compiled.parameters]);
        return { rows: result.rows, ...affected(result.affectedRows) };
      },
      streamQuery: () => {
        throw new Error('streaming is not supported on PGlite');
      },
    };
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.turn;
    let release!: () => void;
    this.turn = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    this.release = release;
    return this.connection;
  }

  async releaseConnection(): Promise<void> {
    const release = this.release;
    this.release = undefined;
    release?.();
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    // As Kysely's PostgresDriver: the isolation level and access mode asked for, on BEGIN itself.
    const options = [settings.isolationLevel ? `isolation level ${settings.isolationLevel}` : '', settings.accessMode ?? ''].filter(
      Boolean,
    );
    await connection.executeQuery(CompiledQuery.raw(options.length ? `start transaction ${options.join(' ')}` : 'begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async destroy(): Promise<void> {
    await this.pglite.close();
  }
}

const affected = (rows: number | undefined) => (rows === undefined ? {} : { numAffectedRows: BigInt(rows) });
