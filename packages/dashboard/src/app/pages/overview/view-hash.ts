import {
  DEFAULT_STATS_RANGE,
  RUN_DURATION_GROUPINGS,
  type RunDurationGrouping,
  STATS_RANGE_NAMES,
  type StatsRange,
} from '@agentrun/client';
import { useEffect, useState } from 'preact/hooks';

/**
 * What the overview shows, kept in the URL's hash (`#range=7d&by=name`) so a reload or a shared
 * link shows the same (docs/dashboard.md, "Overview"). The hash, not the query: it is the page's
 * own state, never sent to the server.
 */
export interface OverviewView {
  range: StatsRange;
  by: RunDurationGrouping;
}

const DEFAULT_VIEW: OverviewView = { range: DEFAULT_STATS_RANGE, by: 'harness' };

function readHash(): OverviewView {
  const params = new URLSearchParams(location.hash.slice(1));
  const range = params.get('range');
  const by = params.get('by');
  return {
    range: STATS_RANGE_NAMES.find((r) => r === range) ?? DEFAULT_VIEW.range,
    by: RUN_DURATION_GROUPINGS.find((b) => b === by) ?? DEFAULT_VIEW.by,
  };
}

export function useOverviewView(): [OverviewView, (change: Partial<OverviewView>) => void] {
  const [view, setView] = useState(readHash);
  useEffect(() => {
    const onHash = () => setView(readHash());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  // From the hash, not this render's view: a memoized child may hold an older `change`.
  const change = (next: Partial<OverviewView>) => {
    const merged = { ...readHash(), ...next };
    // replaceState: switching a range is not a new page for the Back button.
    history.replaceState(history.state, '', `#${new URLSearchParams({ range: merged.range, by: merged.by })}`);
    setView(merged);
  };
  return [view, change];
}
