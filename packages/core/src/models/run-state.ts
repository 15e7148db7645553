import * as v from 'valibot';

/** Every state a run can be in (docs/state-machine.md). */
export const RUN_STATES = ['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS', 'SUCCEEDED', 'FAILED', 'BLOCKED', 'ERROR', 'CANCELLED'] as const;
export const RunStateSchema = v.picklist(RUN_STATES, 'must be one of ' + RUN_STATES.join(', '));
export type RunState = v.InferOutput<typeof RunStateSchema>;

/** Who or what created a run. `WEBHOOK` marks runs started by the webhook ingress. */
export const RUN_SOURCES = [
  'API',
  'CLI',
  'WEBHOOK',
  'LINEAR',
  'SLACK',
  'LOCAL',
  'SCHEDULED_AGENT',
  'WEB_APP',
  'GITHUB_ACTION',
  'CLOUD_MODE',
] as const;
export const RunSourceTypeSchema = v.picklist(RUN_SOURCES, 'must be one of ' + RUN_SOURCES.join(', '));
export type RunSourceType = v.InferOutput<typeof RunSourceTypeSchema>;
