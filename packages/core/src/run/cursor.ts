import { invalidRequest } from '../errors.js';
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

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function encodeCursor(c: RunCursor): string {
  const wire: Wire = { v: 1, s: c.sortBy, o: c.order, k: c.value, i: c.id };
  if (c.asOf !== undefined) wire.a = c.asOf;
  return base64UrlEncode(new TextEncoder().encode(JSON.stringify(wire)));
}

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
    !ISO.test(wire.k) ||
    typeof wire.i !== 'string' ||
    wire.i.length > 256 ||
    (wire.a !== undefined && (typeof wire.a !== 'string' || !ISO.test(wire.a)))
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
