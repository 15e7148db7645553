/**
 * Every metric agentrun records, with its unit and attributes: the one list the docs' table
 * (docs/operations.md, "Metrics and traces") is written from. The Prometheus exporter turns the
 * dots into underscores and ends counters in `_total` (`agentrun_runs_total`).
 */
export const METRICS = {
  runs: { name: 'agentrun.runs', unit: '{run}', description: 'Runs entering a state (QUEUED when created), by state and source' },
  runDuration: { name: 'agentrun.run.duration', unit: 's', description: 'From creation to a terminal state, by that state and source' },
  pickupLatency: { name: 'agentrun.run.pickup_latency', unit: 's', description: 'From creation to the first claim by a worker, by source' },
  queueDepth: { name: 'agentrun.queue.depth', unit: '{run}', description: 'Runs in QUEUED, read from the store at each collection' },
  queueAge: {
    name: 'agentrun.queue.oldest_age',
    unit: 's',
    description: 'Age of the oldest QUEUED run (0 when none), read from the store at each collection',
  },
  deliveries: { name: 'agentrun.deliveries', unit: '{delivery}', description: 'Webhook deliveries answered, by label and scheme' },
  refusals: {
    name: 'agentrun.ingress.refusals',
    unit: '{delivery}',
    description: 'Deliveries refused with 429, by reason (rate_limit, auth_budget) and scheme',
  },
  storeDuration: { name: 'agentrun.store.duration', unit: 's', description: 'Each store call, by operation and outcome' },
} as const;

/** Attribute keys, written once. */
export const ATTR = {
  runState: 'agentrun.run.state',
  runSource: 'agentrun.run.source',
  runId: 'agentrun.run.id',
  runIds: 'agentrun.run.ids',
  attempt: 'agentrun.run.attempt',
  outcome: 'agentrun.outcome',
  label: 'agentrun.delivery.label',
  deliveryId: 'agentrun.delivery.id',
  scheme: 'agentrun.webhook.scheme',
  webhookUid: 'agentrun.webhook.uid',
  reason: 'agentrun.refusal.reason',
  operation: 'agentrun.store.operation',
  apiOperation: 'agentrun.operation',
  requestId: 'agentrun.request_id',
} as const;

/** Labels of deliveries that no log entry records. */
export const UNLOGGED_LABELS = { notFound: 'Not found', refused: 'Refused', unreadable: 'Rejected (unreadable body)' } as const;
