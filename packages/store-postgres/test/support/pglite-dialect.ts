import type { PGlite } from '@electric-sql/pglite';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from 'kysely';
import type { Db } from '../../src/db.js';

/**
 * A Kysely dialect over an in-process PGlite, for machines without a PostgreSQL server. PGlite is
 * one connection: a queue hands it to one Kysely connection at a time, so a transaction is never
 * interleaved with other queries. (kysely-pglite exists, but brings a CLI and a code generator.)
 */
export function pgliteDialect(pglite: PGlite): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createQueryCompiler: () => new PostgresQueryCompiler(),
    createIntrospector: (db: Db) => new PostgresIntrospector(db),
    createDriver: () => new PGliteDriver(pglite),
  };
}

class PGliteDriver implements Driver {
  private queue: Promise<void> = Promise.resolve();
  private readonly connection: DatabaseConnection;

  constructor(private readonly pglite: PGlite) {
    this.connection = {
      executeQuery: async <R>(compiled: CompiledQuery): Promise<QueryResult<R>> => {
        if (compiled.parameters.length === 0) {
          // exec runs several statements (migrations); the last result is the answer.
          const results = await pglite.exec(compiled.sql);
          const last = results.at(-1);
          return {
            rows: (last?.rows ?? []) as R[],
            ...(last?.affectedRows !== undefined ? { numAffectedRows: BigInt(last.affectedRows) } : {}),
          };
        }
        const result = await pglite.query<R>(compiled.sql, [...compiled.parameters]);
        return { rows: result.rows, ...(result.affectedRows !== undefined ? { numAffectedRows: BigInt(result.affectedRows) } : {}) };
      },
      streamQuery: () => {
        throw new Error('streaming is not supported on PGlite');
      },
    };
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    let release!: () => void;
    const previous = this.queue;
    this.queue = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    this.releases.push(release);
    return this.connection;
  }

  private readonly releases: (() => void)[] = [];

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery({ sql: 'BEGIN', parameters: [] } as unknown as CompiledQuery);
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery({ sql: 'COMMIT', parameters: [] } as unknown as CompiledQuery);
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery({ sql: 'ROLLBACK', parameters: [] } as unknown as CompiledQuery);
  }
  async releaseConnection(): Promise<void> {
    this.releases.shift()?.();
  }
  async destroy(): Promise<void> {
    await this.pglite.close();
  }
}
