import { readFileSync } from 'node:fs';
import pg from 'pg';

/**
 * The CPU time of PostgreSQL backends, read from /proc, told apart by the `application_name` of
 * their connections: what a workload costs the database server itself, which `pg_stat_database`
 * (every session of the database) and a shared machine's load blur. Used by the `queue` and
 * `postgres-ingress` groups (docs/production.md, "Measured").
 */
export interface BackendCpu {
  /** utime + stime (ms) of each backend whose connection has this `application_name`, by pid. */
  read(applicationName: string): Promise<Map<number, number>>;
  close(): Promise<void>;
}

/**
 * Readable only when the server runs on this machine (its backends' /proc entries visible); else
 * every read answers an empty map, and the figures built on it are NaN. A backend that ended
 * between two reads is missed: the pools measured keep theirs open.
 */
export async function backendCpu(url: string): Promise<BackendCpu> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  admin.on('error', () => {});
  const { rows } = await admin.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const readable = procCpuMs(rows[0]?.pid ?? 0) !== undefined;
  return {
    async read(applicationName) {
      const cpu = new Map<number, number>();
      if (!readable) return cpu;
      const found = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [applicationName]);
      for (const { pid } of found.rows) {
        const ms = procCpuMs(pid);
        if (ms !== undefined) cpu.set(pid, ms);
      }
      return cpu;
    },
    close: () => admin.end(),
  };
}

/** CPU ms spent between two reads by the backends of the second (a backend new since counts from zero); NaN when none was readable. */
export function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  if (after.size === 0) return Number.NaN;
  let ms = 0;
  for (const [pid, total] of after) ms += total - (before.get(pid) ?? 0);
  return ms;
}

/** utime + stime of a process, in ms (clock ticks of 10 ms), or `undefined` if not readable. */
function procCpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** The connection string with this `application_name`. */
export function withApplicationName(url: string, name: string): string {
  const u = new URL(url);
  u.searchParams.set('application_name', name);
  return u.toString();
}
