/**
 * Run a start-up step that needs the database (migrations) until the database answers: a server
 * started before its database (a compose file, a host reboot, a failover in progress) waits for it
 * instead of exiting. Only outages are waited out (`isUnavailable`: refused or lost connections,
 * a server starting up); any other error, a bad password or a failed migration, ends the start at
 * once. Waits 0.5 s, then twice as long each time up to 10 s, and says so at most every 10 s
 * (docs/production.md, "When the database goes away").
 */
export async function waitForDatabase<T>(
  step: () => Promise<T>,
  isUnavailable: (error: unknown) => boolean,
  log: (line: string) => void = (line) => console.error(line),
): Promise<T> {
  let waitMs = 500;
  let lastLog = Number.NEGATIVE_INFINITY;
  for (;;) {
    try {
      return await step();
    } catch (error) {
      if (!isUnavailable(error)) throw error;
      if (Date.now() - lastLog >= 10_000) {
        lastLog = Date.now();
        log(`[agentrun] waiting for the database (${error instanceof Error ? error.message : String(error)}); retrying`);
      }
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      waitMs = Math.min(waitMs * 2, 10_000);
    }
  }
}
