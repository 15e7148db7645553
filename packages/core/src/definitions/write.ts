import type { ControlContext } from '../control/control-context.js';
import { conflict } from '../errors.js';
import type { DefinitionWrite } from '../store/definitions.js';

/** Plans made and found stale (another write to the factory came first) before giving up with a 409. */
const ATTEMPTS = 3;

/** One planning of a definitions write: what to write (none: nothing to), and what to answer once it is written. */
export interface Planned<T> {
  write?: DefinitionWrite;
  answer: T;
}

/**
 * Plan on the factory as it is now and write the plan (docs/definitions.md, "Two applies at once"):
 * the store refuses a write planned on a version another write has moved, and the plan is made
 * again on what that write left, up to three times, then a retryable 409.
 */
export async function writePlanned<T>(ctx: ControlContext, factoryUid: string, plan: () => Promise<Planned<T>>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const { write, answer } = await plan();
    if (!write) return answer;
    const outcome = await ctx.store.definitions.write(write);
    if (outcome.applied) return answer;
    if (outcome.reason === 'limit')
      throw conflict(`factory ${factoryUid} would have more than ${ctx.maxWebhooksPerFactory} webhooks, the most it may have`);
    if (attempt >= ATTEMPTS) throw conflict(`factory ${factoryUid} kept changing while this change was planned; try again`, true);
  }
}
