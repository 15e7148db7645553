/**
 * A turn of the event loop, so that I/O and other requests' callbacks run before the caller goes
 * on (an awaited promise would not let them). For work long enough to stall the server if done in
 * one stretch (docs/run-api.md, "Sizes first"; the evaluation's batches).
 *
 * `setImmediate` where the runtime has one (Node, Bun): it runs once the loop has polled for I/O,
 * without waiting. A `setTimeout(0)` waits at least a millisecond: where nothing else is pending
 * (an evaluator catching up on a backlog, one large body) the process would sit idle that long at
 * every turn, about three quarters of the time on the evaluation bench (bench/README.md, "What was
 * tried"). Elsewhere, `setTimeout`, which every runtime agentrun serves on has.
 */
const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;

export const nextTurn: () => Promise<void> =
  typeof immediate === 'function'
    ? () => new Promise<void>((resolve) => immediate(resolve))
    : () => new Promise<void>((resolve) => setTimeout(resolve, 0));
