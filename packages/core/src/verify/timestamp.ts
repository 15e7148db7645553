/** Unix seconds as sent in a header: digits only, so `1e9`, `0x10`, `-5` or `12abc` are malformed. */
const UNIX_SECONDS = /^[0-9]{1,15}$/;

export const parseUnixSeconds = (text: string): number | undefined => (UNIX_SECONDS.test(text) ? Number(text) : undefined);

/**
 * Why a signature made at `signedAt` is unacceptable at `current` (same unit), or `undefined` if
 * within `tolerance` either way. Future timestamps are refused too, so a captured delivery cannot
 * be replayed later than the window. A non-finite clock fails closed.
 */
export const ageProblem = (signedAt: number, current: number, tolerance: number): string | undefined => {
  if (!Number.isFinite(signedAt) || !Number.isFinite(current)) return 'invalid timestamp';
  if (current - signedAt > tolerance) return 'timestamp too old';
  if (signedAt - current > tolerance) return 'timestamp too far in the future';
  return undefined;
};

/** Whole seconds of an injected ms clock, as the providers' own libraries compare. */
export const unixSeconds = (nowMs: number): number => Math.floor(nowMs / 1000);
