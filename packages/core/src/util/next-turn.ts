/**
 * A turn of the event loop: a timer, so that I/O and other requests' callbacks run before the
 * caller goes on (an awaited promise would not let them). For work long enough to stall the
 * server if done in one stretch (docs/run-api.md, "Sizes first"). Every runtime agentrun serves
 * on has `setTimeout`.
 */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setTimeout(resolve, 0));
