import { useLayoutEffect, useState } from 'preact/hooks';
import { describe, type Problem } from '../../problems.js';

/** How often the overview reads its aggregates again while the tab is visible. */
const POLL_MS = 5000;

export interface Polled<T> {
  data: T | undefined;
  problem: Problem | undefined;
}

/**
 * Reads `load` now, and again every {@link POLL_MS} while the tab is visible (at once when it
 * shows again). The last answer stays until the next one arrives, so a chart updates its data in
 * place instead of blinking through a loading state; `deps` changing reads at once.
 */
export function usePoll<T>(load: () => Promise<T>, deps: unknown[]): Polled<T> {
  const [state, setState] = useState<Polled<T>>({ data: undefined, problem: undefined });
  // A layout effect: the first read leaves with the first render, not a frame after its paint
  // (Preact runs plain effects after the next frame), which is the overview's first-draw time.
  useLayoutEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let reading = false;
    const read = async () => {
      if (reading) return;
      reading = true;
      clearTimeout(timer);
      try {
        const data = await load();
        if (live) setState({ data, problem: undefined });
      } catch (error) {
        if (live) setState((s) => ({ data: s.data, problem: describe(error) }));
      } finally {
        reading = false;
      }
      if (live && document.visibilityState === 'visible') timer = setTimeout(read, POLL_MS);
    };
    const onVisibility = () => {
      if (document.visibilityState === 'visible') void read();
      else clearTimeout(timer);
    };
    void read();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      live = false;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, deps);
  return state;
}
