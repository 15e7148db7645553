import { expect, it } from 'vitest';
import type { Store } from '../store/store.js';

/**
 * `Store.checkReady` (docs/operations.md, "Health"): a store given to the suite is ready to use
 * (migrated), so it reports no pending migration; a store without the method is ready by
 * definition and skips nothing here.
 */
export function describeReadinessConformance(store: () => Store): void {
  it('reports a store ready to use as ready: reachable, no migration pending', async () => {
    const found = await store().checkReady?.();
    if (found === undefined) return;
    expect(found.pendingMigrations).toEqual([]);
  });
}
