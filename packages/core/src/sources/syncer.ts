import type { ControlContext } from '../control/control-context.js';
import type { FactorySourceRecord, SourceTrigger } from './records.js';
import { type SyncOutcome, syncSource } from './sync.js';

/** Sources read per page of a poll. */
const POLL_PAGE = 100;

/** An apply still `applying` after this long is taken to have died with its process, and its commit is applied again. */
const STALE_MS = 10 * 60 * 1000;

/**
 * Runs the syncs of one process (docs/repositories.md, "Factories from a repository"): one at a
 * time per factory; a wake (a push notification) while a sync of the factory runs or waits adds
 * at most one more after it, so a burst of pushes fetches once or twice, not once each; and a
 * sync that applied a commit fetches once more after it. Across processes the store's claim
 * decides (sync.ts).
 */
export class SourceSyncer {
  private readonly chains = new Map<string, { tail: Promise<unknown>; queued: boolean }>();

  constructor(
    private readonly ctx: ControlContext,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Sync now, after any sync of the factory this process runs; resolves to what it did. */
  sync(source: FactorySourceRecord, trigger: SourceTrigger): Promise<SyncOutcome | undefined> {
    return this.enqueue(source, trigger);
  }

  /** Wake the factory's sync (a push), in the background; failures go to `onError`. */
  wake(source: FactorySourceRecord, trigger: SourceTrigger): void {
    if (this.chains.get(source.factoryUid)?.queued) return;
    this.enqueue(source, trigger).catch(this.onError);
  }

  /** Sync every team's sources, one after the other (the poll, a maintenance task); resolves to how many applied a commit. */
  async pollAll(): Promise<number> {
    let applied = 0;
    let after: string | undefined;
    for (;;) {
      const page = await this.ctx.store.factorySources.list(after, POLL_PAGE);
      for (const source of page) {
        if (this.chains.has(source.factoryUid)) continue;
        try {
          if ((await this.enqueue(source, 'poll'))?.outcome === 'applied') applied++;
        } catch (error) {
          this.onError(error);
        }
      }
      if (page.length < POLL_PAGE) return applied;
      after = page[page.length - 1]?.factoryUid;
    }
  }

  /** Resolves when no sync of this process runs (shutdown waits for it). */
  async idle(): Promise<void> {
    while (this.chains.size > 0) await Promise.allSettled([...this.chains.values()].map((c) => c.tail));
  }

  private enqueue(source: FactorySourceRecord, trigger: SourceTrigger): Promise<SyncOutcome | undefined> {
    const chain = this.chains.get(source.factoryUid) ?? { tail: Promise.resolve(), queued: false };
    chain.queued = true;
    const run = chain.tail.then(async () => {
      chain.queued = false;
      // Read again: the source may have changed or gone while this waited.
      const current = await this.ctx.store.factorySources.get(source.teamUid, source.factoryUid);
      if (!current) return undefined;
      const result = await syncSource(this.ctx, current, trigger, STALE_MS);
      // A commit pushed while this one applied had its notification find the factory busy (here
      // or in another process): one more fetch applies it now rather than at the next poll.
      if (result.outcome === 'applied' || result.outcome === 'failed') this.wake(current, trigger);
      return result;
    });
    const tail = run.catch(() => undefined);
    chain.tail = tail;
    this.chains.set(source.factoryUid, chain);
    void tail.then(() => {
      if (chain.tail === tail) this.chains.delete(source.factoryUid);
    });
    return run;
  }
}
