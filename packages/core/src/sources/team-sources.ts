import type { Store } from '../store/store.js';
import type { FactorySourceRecord } from './records.js';

/**
 * The team's factory sources, factory by factory: what a change to a repository or a team secret
 * checks before it takes away something a source needs (docs/repositories.md, "Factories from a
 * repository").
 */
export async function teamSources(store: Store, teamUid: string): Promise<FactorySourceRecord[]> {
  const sources: FactorySourceRecord[] = [];
  for (const factory of await store.factories.list(teamUid)) {
    const source = await store.factorySources.get(teamUid, factory.uid);
    if (source) sources.push(source);
  }
  return sources;
}
