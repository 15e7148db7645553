/**
 * The ingress functions of 0004 find their tables by the caller's `search_path`, which is the
 * host's: a host whose path leads elsewhere (`public`, or its own `runs`) would have them read or
 * fail on the wrong tables. Pin each one's path to the schema it lives in: migrations run with
 * `search_path` set to agentrun's schema (then `pg_temp`, last, so a session's temporary table
 * cannot stand in for one of ours), and `FROM CURRENT` records exactly that. Installs from before
 * the `schema` option get here after their tables and functions were moved (legacy-layout.ts).
 */
export const up = `
ALTER FUNCTION agentrun_rate_admit(text, integer, timestamptz, timestamptz) SET search_path FROM CURRENT;
ALTER FUNCTION agentrun_accept_delivery(text, text, text, text, text, integer, timestamptz, bytea, jsonb, jsonb, text, integer,
  timestamptz, timestamptz) SET search_path FROM CURRENT;
`;
