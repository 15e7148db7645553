/**
 * What an answered delivery adds to its request's log line (docs/operations.md, "Logging"): its
 * ID, whether it was a duplicate, and the runs it started, by ID. Identifiers only.
 */
export function deliveryLogFields(
  deliveryId: string,
  accepted: boolean,
  runs: readonly { run: { id: string } }[],
): Record<string, string | number> {
  if (!accepted) return { delivery_id: deliveryId, outcome: 'duplicate' };
  const fields: Record<string, string | number> = { delivery_id: deliveryId, runs_started: runs.length };
  if (runs.length > 0) fields.run_ids = runs.map((r) => r.run.id).join(',');
  return fields;
}
