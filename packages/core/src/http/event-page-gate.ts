import { AgentRunError } from '../errors.js';
import { EVENT_PAGE_BYTES } from '../models/run-events.js';
import { createGate, type Gate, type GateLimits } from '../util/gate.js';

// How many pages of run events a handler builds at once (docs/run-api.md, "A page"): a page holds
// up to `EVENT_PAGE_BYTES` of text while it is built, so these limits bound what all the builds
// in flight hold together (about four pages' worth), whatever the number of readers. A request
// beyond them waits briefly for a place, then is answered 503 with `Retry-After`, which both
// published clients retry on their own.

export const EVENT_PAGE_BUILDS: GateLimits = { concurrent: 4, waiting: 64, waitMs: 2_000 };
/** Seconds a refused reader is told to wait: a page builds in milliseconds. */
const RETRY_AFTER_S = 1;

const busy = () =>
  new AgentRunError(
    'unavailable',
    `too many event pages are being built right now (at most ${EVENT_PAGE_BUILDS.concurrent} at once, of up to ${EVENT_PAGE_BYTES} bytes each); retry shortly`,
    { retryable: true, headers: { 'retry-after': String(RETRY_AFTER_S) } },
  );

/** The gate for one handler's page builds. */
export const eventPageGate = (limits: GateLimits = EVENT_PAGE_BUILDS): Gate => createGate(limits, busy);
