/**
 * Worker hosts (docs/operations.md, "Worker hosts"): the host a run is routed to, as a column the
 * claim filters on (an empty `config.worker_host` names none, as core's `runWorkerHost` says), an
 * index of the runs queued for each host, and the workers' presence records.
 */
export const up = `
ALTER TABLE runs ADD COLUMN worker_host text GENERATED ALWAYS AS (NULLIF(config ->> 'worker_host', '')) STORED;
-- The queue as one index per route, so a claim walks only the queues it takes from and never steps
-- over runs queued for other hosts (runs-sql.ts \`nextRun\`): runs_queue, the whole queue, goes.
DROP INDEX runs_queue;
CREATE INDEX runs_queue_unrouted ON runs (created_at, id) WHERE state = 'QUEUED' AND worker_host IS NULL;
CREATE INDEX runs_queue_host ON runs (worker_host, created_at, id) WHERE state = 'QUEUED' AND worker_host IS NOT NULL;

CREATE TABLE workers (
  id            text COLLATE "C" PRIMARY KEY,
  host          text COLLATE "C" NOT NULL,
  unrouted      boolean NOT NULL,
  capacity      integer NOT NULL,
  -- The runs it holds now: [{ "id", "teamUid" }].
  runs          jsonb NOT NULL,
  executor      text NOT NULL,
  version       text NOT NULL,
  started_at    timestamptz(3) NOT NULL,
  last_seen_at  timestamptz(3) NOT NULL
);
CREATE INDEX workers_seen ON workers (last_seen_at);
`;
