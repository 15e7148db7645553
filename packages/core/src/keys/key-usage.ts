import type { ApiKeyStore } from '../store/api-keys.js';
import { isoTime } from '../util/clock.js';

/** Default: at most one `last_used_at` write every 60 s per process (docs/operations.md, "API keys"). */
const DEFAULT_KEY_USAGE_FLUSH_MS = 60_000;

/**
 * When keys were last used, without a write per request: each use is remembered in memory (the
 * latest per key), and one statement writes them all at most every `flushMs`, from a timer that
 * exists only while there is something to write. `flush()` writes now (call it at shutdown).
 */
export interface KeyUsage {
  note(hash: string, atMs: number): void;
  flush(): Promise<void>;
}

export function createKeyUsage(
  store: Pick<ApiKeyStore, 'touch'>,
  options: { flushMs?: number; onError: (error: unknown) => void },
): KeyUsage {
  const flushMs = options.flushMs ?? DEFAULT_KEY_USAGE_FLUSH_MS;
  let pending = new Map<string, number>();
  let timer: ReturnType<typeof setTimeout> | undefined;

  const flush = async () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    try {
      await store.touch([...batch].map(([hash, at]) => ({ hash, at: isoTime(at) })));
    } catch (error) {
      // Put the uses back (a later use of the same key wins) for the next flush.
      for (const [hash, at] of batch) if ((pending.get(hash) ?? 0) < at) pending.set(hash, at);
      options.onError(error);
    }
  };

  return {
    note(hash, atMs) {
      if ((pending.get(hash) ?? 0) < atMs) pending.set(hash, atMs);
      if (timer === undefined) {
        timer = setTimeout(() => void flush(), flushMs);
        // Never keep a process alive for this (Node's timers have unref; others do not need it).
        (timer as { unref?: () => void }).unref?.();
      }
    },
    flush,
  };
}
