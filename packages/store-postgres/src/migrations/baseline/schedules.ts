/**
 * Schedules (docs/schedules.md): cron expressions that start runs. `schedule_fires` holds one row
 * per due time a schedule started a run for: its primary key is the exactly-once rule, claimed in
 * the transaction that inserts the run (schedules.ts `fire`), so any number of processes start one
 * run per due time. A run keeps the schedule it came from in `runs.schedule`.
 */
export const up = `
CREATE TABLE schedules (
  team_uid          text NOT NULL,
  id                text NOT NULL,
  factory_uid       text,
  name              text COLLATE "C" NOT NULL,
  cron_schedule     text NOT NULL,
  time_zone         text NOT NULL,
  enabled           boolean NOT NULL,
  prompt            text NOT NULL,
  agent_config      jsonb,
  agent_uid         text,
  created_by        jsonb NOT NULL,
  owner             jsonb NOT NULL,
  created_at        timestamptz(3) NOT NULL,
  updated_at        timestamptz(3) NOT NULL,
  next_due_at       timestamptz(3),
  last_ran_at       timestamptz(3),
  last_spawn_error  text,
  PRIMARY KEY (team_uid, id)
);
CREATE INDEX schedules_due ON schedules (next_due_at) WHERE enabled AND next_due_at IS NOT NULL;

CREATE TABLE schedule_fires (
  team_uid     text NOT NULL,
  schedule_id  text NOT NULL,
  due_at       timestamptz(3) NOT NULL,
  run_id       text NOT NULL,
  PRIMARY KEY (team_uid, schedule_id, due_at),
  FOREIGN KEY (team_uid, schedule_id) REFERENCES schedules (team_uid, id) ON DELETE CASCADE
);
`;
