import { useEffect } from 'preact/hooks';

/**
 * Calls `tick` `ms` after it was last called while `active` and the tab is shown, and at once when
 * the tab is shown again: a list that keeps itself current without asking while nobody looks.
 * Passing `active` false while a load is in flight makes the next tick wait for it (no pile-up on
 * a slow server).
 */
export function usePoll(tick: () => void, ms: number, active: boolean): void {
  useEffect(() => {
    if (!active) return;
    const timer = setTimeout(() => {
      if (document.visibilityState === 'visible') tick();
    }, ms);
    const onShown = () => {
      if (document.visibilityState === 'visible') tick();
    };
    document.addEventListener('visibilitychange', onShown);
    return () => {
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onShown);
    };
  }, [tick, ms, active]);
}
