import * as v from 'valibot';
import { invalidRequest } from '../errors.js';
import { hasLoneSurrogate } from '../models/text.js';
import { isStoredInstant } from '../models/timestamps.js';
import { base64UrlDecode, base64UrlEncode } from '../util/ids.js';
import { RUN_SORT_KEYS, type RunSortKey, type SortOrder } from './list-query.js';

/** What a list cursor holds: the keyset position and the order it belongs to. Opaque to clients. */
export interface RunCursor {
  sortBy: RunSortKey;
  order: SortOrder;
  /** The sort value of the last run of the page; `null` only for `agent` (a run without a skill). */
  value: string | null;
  id: string;
  asOf?: string;
}

interface Wire {
  v: 1;
  s: RunSortKey;
  o: SortOrder;
  k: string | null;
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

/** Text a store can compare: no NUL (Postgres refuses it), no unpaired surrogate (no UTF-8 form). */
const isStorableText = (s: string) => s.length <= 2048 && !s.includes('\u0000') && !hasLoneSurrogate(s);

const instant = v.pipe(v.string(), v.check(isStoredInstant));
const text = v.pipe(v.string(), v.check(isStorableText));
/** The sort value each order's cursors carry (docs/run-api.md, "Cursors"). */
const KEY_OF: Record<RunSortKey, v.GenericSchema<unknown, string | null>> = {
  updated_at: instant,
  created_at: instant,
  title: text,
  agent: v.nullable(text),
};

const WireSchema = v.strictObject({
  v: v.literal(1),
  s: v.picklist(RUN_SORT_KEYS),
  o: v.picklist(['asc', 'desc']),
  k: v.unknown(),
  i: v.custom<string>(isCursorId),
  a: v.optional(instant),
});

/**
 * Decode a cursor and check it belongs to this sort; anything else is a 400. Every field is checked
 * here, in core, so no store ever sees a value it cannot compare (docs/run-api.md, "List runs", on
 * cursors).
 */
export function decodeCursor(text: string, sortBy: RunSortKey, order: SortOrder): RunCursor {
  const bad = (why: string) => invalidRequest(`invalid cursor: ${why}`);
  const notOurs = () => bad('not a cursor returned by this API');
  const bytes = base64UrlDecode(text);
  if (!bytes) throw notOurs();
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw notOurs();
  }
  const parsed = v.safeParse(WireSchema, json);
  if (!parsed.success) throw notOurs();
  const wire = parsed.output;
  const key = v.safeParse(KEY_OF[wire.s], wire.k);
  if (!key.success) throw notOurs();
  if (wire.s !== sortBy || wire.o !== order) {
    throw bad(`it belongs to sort_by=${wire.s}&sort_order=${wire.o}; send the same sort with it`);
  }
  const cursor: RunCursor = { sortBy: wire.s, order: wire.o, value: key.output, id: wire.i };
  if (wire.a !== undefined) cursor.asOf = wire.a;
  return cursor;
}
