import { useCallback, useEffect, useState } from 'preact/hooks';
import { describe, type Problem } from './problems.js';

/** Something loaded from the API: its data, its error in words, and a way to load it again. */
export interface Loaded<T> {
  data: T | undefined;
  problem: Problem | undefined;
  loading: boolean;
  reload(): void;
}

export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; problem: Problem | undefined; loading: boolean }>({
    data: undefined,
    problem: undefined,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, problem: undefined, loading: false }),
      (error: unknown) => live && setState({ data: undefined, problem: describe(error), loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}
