import type { DeliveryStatLabel, RunState } from '@agentrun/client';

/**
 * The charts' colours. A run state's is from the same family as its badge in styles.css (greys
 * for the waiting states, blue in progress, green succeeded, reds failed and error, amber
 * blocked), a shade apart where badges share one, so stacked series stay told apart.
 */
export const STATE_COLOURS: Record<RunState, string> = {
  QUEUED: '#8c959f',
  PENDING: '#afb8c1',
  CLAIMED: '#6e7781',
  INPROGRESS: '#0969da',
  SUCCEEDED: '#1a7f37',
  FAILED: '#cf222e',
  BLOCKED: '#bf8700',
  ERROR: '#82071e',
  CANCELLED: '#424a53',
};

export const LABEL_COLOURS: Record<DeliveryStatLabel, string> = {
  Accepted: '#1a7f37',
  'Filtered out': '#8c959f',
  Duplicate: '#8250df',
  Rejected: '#cf222e',
  'Rate limited': '#bc4c00',
};
