/**
 * A run's transcript holds the tool calls its agent made and their results (docs/run-api.md, "Run
 * events"): two more event types. The check is added `NOT VALID` and validated apart, so existing
 * rows are read under a lock that lets writers go on.
 */
export const up = `
ALTER TABLE run_events DROP CONSTRAINT run_events_type_check;
ALTER TABLE run_events ADD CONSTRAINT run_events_type_check
  CHECK (type IN ('state', 'output', 'status', 'followup', 'artifact', 'tool_call', 'tool_result', 'truncated')) NOT VALID;
ALTER TABLE run_events VALIDATE CONSTRAINT run_events_type_check;
`;
