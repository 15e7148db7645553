import { createHash } from 'node:crypto';
import { CompiledQuery, type RawBuilder } from 'kysely';
import type pg from 'pg';
import type { Db, Tx } from './db.js';

/**
 * The queue's hot statements (runs-sql.ts: create, claim, transition; the follow-ups read) as SQL
 * text built once per shape and sent as named prepared statements, so neither Kysely compiles nor
 * PostgreSQL parses and plans them per call (docs/production.md, "Through a connection pooler").
 *
 * A statement's name is a hash of its text, and the text names the store's schema (tables.ts), so
 * stores of different schemas on one pool never share a name. The text lists its columns (never
 * `*`): a prepared statement whose result columns change (a later migration adding one) would fail.
 * Named statements need the `pg` pool; a store built on a `Kysely` instance (the `db` option), or a
 * statement inside a transaction, runs the same text unnamed through Kysely.
 */
export interface Statements {
  run<R>(statement: Prepared, values: readonly unknown[], executor?: Tx): Promise<R[]>;
}

/** SQL text and the name it is prepared under. */
export interface Prepared {
  readonly name: string;
  readonly text: string;
}

export function prepared(text: string): Prepared {
  return { name: `agentrun_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`, text };
}

export function createStatements(db: Db, pool: pg.Pool | undefined): Statements {
  return {
    async run<R>(statement: Prepared, values: readonly unknown[], executor?: Tx) {
      if (pool && !executor)
        return (await pool.query({ name: statement.name, text: statement.text, values: values as unknown[] })).rows as R[];
      return (await (executor ?? db).executeQuery(CompiledQuery.raw(statement.text, values as unknown[]))).rows as R[];
    },
  };
}

/**
 * A value given to a statement per call: a statement builder receives one in place of each value
 * that differs between calls of the same shape, so its compiled text can be kept (`templates`).
 */
export class Slot {
  constructor(readonly index: number) {}
  /** In a shape's key, every slot is alike. */
  toJSON() {
    return '$';
  }
}

/** Collects a call's values, handing out the slot each one is sent in. */
export function slots(): { values: unknown[]; slot: (value: unknown) => Slot } {
  const values: unknown[] = [];
  return {
    values,
    slot(value) {
      values.push(value);
      return new Slot(values.length - 1);
    },
  };
}

interface Template {
  prepared: Prepared;
  parameters: readonly unknown[];
}

/**
 * Statements of a builder, compiled once per shape: `key` (the JSON of its input with every
 * per-call value a `Slot`) tells the shape. The cache is bounded: shapes are few (which fields a
 * transition patches, how many transcript lines it writes), and past `max` a shape is compiled
 * per call rather than kept.
 */
export function templates(db: Db, max = 256) {
  const cache = new Map<string, Template>();
  return (key: string, build: () => RawBuilder<unknown>, values: readonly unknown[]): { statement: Prepared; values: unknown[] } => {
    let template = cache.get(key);
    if (!template) {
      const compiled = build().compile(db);
      // Unnamed when not kept: `pg` remembers every name prepared on a connection.
      const keep = cache.size < max;
      template = { prepared: keep ? prepared(compiled.sql) : { name: '', text: compiled.sql }, parameters: compiled.parameters };
      if (keep) cache.set(key, template);
    }
    return {
      statement: template.prepared,
      values: template.parameters.map((p) => (p instanceof Slot ? values[p.index] : p)),
    };
  };
}
