/**
 * Batches for the ingress's statements (docs/production.md, "Group commit"): while fewer than
 * `maxInFlight` statements are out, a call is sent at once, alone (no added latency when the
 * ingress is idle); while that many are out, calls queue, and when one statement returns what
 * queued goes as one batch (up to `maxBatch`). For the accepts that is group commit: one
 * statement, one commit, one NOTIFY for all of them (`agentrun_accept_deliveries`), each caller still answered
 * only after the commit that holds its delivery; for the context reads, one round trip.
 *
 * A batch that fails as a whole (a deadlock with another process's batch, one element's error,
 * the connection lost) answers nothing wrong: each of its calls is then sent alone and gets its
 * own answer or error.
 */

export interface BatcherOptions<I, R> {
  /** One call, alone. */
  one: (item: I) => Promise<R>;
  /** Several calls in one statement, answered in the order given, one answer each (else it throws). */
  many: (items: readonly I[]) => Promise<R[]>;
  /** Statements out at once before calls queue. */
  maxInFlight: number;
  /** The most calls in one statement. */
  maxBatch: number;
}

interface Waiting<I, R> {
  item: I;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export function createBatcher<I, R>(options: BatcherOptions<I, R>): (item: I) => Promise<R> {
  const { one, many, maxInFlight, maxBatch } = options;
  let inFlight = 0;
  let queue: Waiting<I, R>[] = [];

  function send(batch: Waiting<I, R>[]): void {
    inFlight++;
    const done = batch.length === 1 ? sendOne(batch[0] as Waiting<I, R>) : sendMany(batch);
    void done.finally(() => {
      inFlight--;
      if (queue.length === 0) return;
      const next = queue.slice(0, maxBatch);
      queue = queue.slice(next.length);
      send(next);
    });
  }

  const sendOne = (w: Waiting<I, R>) => one(w.item).then(w.resolve, w.reject);

  async function sendMany(batch: Waiting<I, R>[]): Promise<void> {
    let results: R[];
    try {
      results = await many(batch.map((w) => w.item));
    } catch {
      // One statement: nothing of it was committed, so each call goes again, alone. (Had the
      // connection gone after an accept batch's commit, each accept alone then fails on its own
      // delivery's id.)
      await Promise.all(batch.map(sendOne));
      return;
    }
    for (const [i, w] of batch.entries()) w.resolve(results[i] as R);
  }

  return (item) =>
    new Promise<R>((resolve, reject) => {
      const waiting = { item, resolve, reject };
      if (inFlight < maxInFlight) send([waiting]);
      else queue.push(waiting);
    });
}
