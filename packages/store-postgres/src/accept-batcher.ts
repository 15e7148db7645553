/**
 * Group commit for the ingress's accepts (docs/production.md, "The webhook ingress"): while fewer
 * than `maxInFlight` statements are out, an accept is sent at once, alone (no added latency when
 * the ingress is idle); while that many are out, accepts queue, and when one statement returns
 * what queued goes as one batch (up to `maxBatch`): one statement, one commit, one NOTIFY for
 * all of them (migration 0026). Each caller still gets its answer only after the commit that
 * holds its delivery.
 *
 * A batch that fails as a whole (a deadlock with another process's batch, one element's error,
 * the connection lost) answers nothing wrong: each of its accepts is then sent alone and gets
 * its own answer or error.
 */

export interface AcceptBatcherOptions<I, R> {
  /** One accept, alone. */
  one: (item: I) => Promise<R>;
  /** Several accepts in one statement, answered in the order given, one answer each (else it throws). */
  many: (items: readonly I[]) => Promise<R[]>;
  /** Statements out at once before accepts queue. */
  maxInFlight: number;
  /** The most accepts in one statement. */
  maxBatch: number;
}

interface Waiting<I, R> {
  item: I;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export function createAcceptBatcher<I, R>(options: AcceptBatcherOptions<I, R>): (item: I) => Promise<R> {
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
      // One statement: nothing of it was committed, so each accept goes again, alone. (Had the
      // connection gone after the commit, each alone then fails on its own delivery's id.)
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
