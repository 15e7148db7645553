/**
 * Payloads this process's ingress parsed at the accept, kept for its own evaluator so that a
 * delivery evaluated here is not decoded and parsed a second time (bench/README.md, "What was
 * tried"). Keyed by delivery ID, which is new per accept; only ever filled and read in one process,
 * so nothing parsed crosses to another: a delivery another process claims is parsed there from
 * its stored bytes, and one not found here (evicted, or accepted before a restart) is parsed from
 * them too. The values are shared, never copied: the ingress and the evaluator only read them.
 *
 * Bounded by entries and by the bodies' bytes, oldest evicted first: under a backlog the
 * evaluator falls back to parsing, and memory stays flat.
 */
export interface ParsedPayloads {
  /** The accept of `deliveryId` parsed its `bytes`-long body into `value`. */
  put(deliveryId: string, value: unknown, bytes: number): void;
  /** The parsed value, removed, or `undefined` when this process holds none. */
  take(deliveryId: string): { value: unknown } | undefined;
}

export function createParsedPayloads(maxEntries = 1024, maxBytes = 16 * 1024 * 1024): ParsedPayloads {
  const held = new Map<string, { value: unknown; bytes: number }>();
  let heldBytes = 0;
  return {
    put(deliveryId, value, bytes) {
      if (bytes > maxBytes) return;
      const before = held.get(deliveryId);
      if (before !== undefined) heldBytes -= before.bytes;
      held.set(deliveryId, { value, bytes });
      heldBytes += bytes;
      if (held.size <= maxEntries && heldBytes <= maxBytes) return;
      // Oldest first: a Map iterates in insertion order.
      for (const [id, entry] of held) {
        if (held.size <= maxEntries && heldBytes <= maxBytes) break;
        held.delete(id);
        heldBytes -= entry.bytes;
      }
    },
    take(deliveryId) {
      const entry = held.get(deliveryId);
      if (entry === undefined) return undefined;
      held.delete(deliveryId);
      heldBytes -= entry.bytes;
      return entry;
    },
  };
}
