import { invalidRequest } from '../errors.js';
import { isStoredInstant } from '../models/timestamps.js';
import { base64UrlDecode, base64UrlEncode } from '../util/ids.js';
import type { RunSortKey, SortOrder } from './list-query.js';

/** What a list cursor holds: the keyset position and the order it belongs to. Opaque to clients. */
export interface RunCursor {
  sortBy: RunSortKey;
  order: SortOrder;
  value: string;
  id: string;
  asOf?: string;
}

interface Wire {
  v: 1;
  s: RunSortKey;
  o: SortOrder;
  k: string;
  i: string;
  a?: string;
}

export function encodeCursor(c: RunCursor): string {
  const wire: Wire = { v: 1, s: c.sortBy, o: c.order, k: c.value, i: c.id };
  if (c.asOf !== undefined) wire.a = c.asOf;
  return base64UrlEncode(new TextEncoder().encode(JSON.stringify(wire)));
}

/**
 * Ids in cursors are ones agentrun made: visible ASCII. Checking this (and every instant) here
 * means a tampered cursor is a 400 on every store, never a value a store cannot compare.
 */
export const isCursorId = (id: unknown): id is string => typeof id === 'string' && /^[\x21-\x7e]{1,256}$/.test(id);

/** Decode a cursor and check it belongs to this sort; anything else is a 400. */
export function decodeCursor(text: string, sortBy: RunSortKey, order: SortOrder): RunCursor {
  const bad = (why: string) => invalidRequest(`invalid cursor: ${why}`);
  const bytes = base64UrlDecode(text);
  if (!bytes) throw bad('not a cursor returned by this API');
  let wire: Partial<Wire>;
  try {
    wire = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw bad('not a cursor returned by this API');
  }
  if (
    typeof wire !== 'object' ||
    wire === null ||
    wire.v !== 1 ||
    (wire.s !== 'updated_at' && wire.s !== 'created_at') ||
    (wire.o !== 'asc' && wire.o !== 'desc') ||
    typeof wire.k !== 'string' ||
    !isStoredInstant(wire.k) ||
    !isCursorId(wire.i) ||
    (wire.a !== undefined && (typeof wire.a !== 'string' || !isStoredInstant(wire.a)))
  ) {
    throw bad('not a cursor returned by this API');
  }
  if (wire.s !== sortBy || wire.o !== order) {
    throw bad(`it belongs to sort_by=${wire.s}&sort_order=${wire.o}; send the same sort with it`);
  }
  const cursor: RunCursor = { sortBy: wire.s, order: wire.o, value: wire.k, id: wire.i };
  if (wire.a !== undefined) cursor.asOf = wire.a;
  return cursor;
}
