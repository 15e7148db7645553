import type { ExecutorWorkerReport } from './executor-worker.js';

type Kind = Exclude<ExecutorWorkerReport['kind'], 'ready'>;
type ReportOf<K extends Kind> = Extract<ExecutorWorkerReport, { kind: K }>;

/**
 * The `executor` bench's worker reports (bench/executor-worker.ts), by kind and run, kept until
 * asked for. Each wait has a deadline (a `performance.now()` instant) rather than a fixed timeout:
 * a sample's wait gets its own, a batch's waits share one that fits the batch (bench/executor.ts).
 */
export class Reports {
  private readonly arrived = new Map<string, ExecutorWorkerReport>();
  private readonly waiting = new Map<string, (report: ExecutorWorkerReport) => void>();
  private ready = 0;
  private readyWaiter: (() => void) | undefined;

  take(report: ExecutorWorkerReport): void {
    if (report.kind === 'ready') {
      this.ready++;
      this.readyWaiter?.();
      return;
    }
    const key = `${report.kind}:${report.runId}`;
    const waiter = this.waiting.get(key);
    if (waiter) {
      this.waiting.delete(key);
      waiter(report);
    } else this.arrived.set(key, report);
  }

  /** Resolves once `count` workers said they are ready. */
  async allReady(count: number, deadline: number): Promise<void> {
    while (this.ready < count) {
      await this.until<void>(deadline, `${count} workers ready (${this.ready} are)`, (resolve) => {
        this.readyWaiter = resolve;
      });
    }
  }

  /** The report of `kind` about `runId`, once it arrives; rejects at `deadline`. */
  next<K extends Kind>(kind: K, runId: string, deadline: number): Promise<ReportOf<K>> {
    const key = `${kind}:${runId}`;
    const found = this.arrived.get(key);
    if (found) {
      this.arrived.delete(key);
      return Promise.resolve(found as ReportOf<K>);
    }
    return this.until<ReportOf<K>>(deadline, `the ${kind} report of ${runId}`, (resolve) => {
      this.waiting.set(key, (report) => resolve(report as ReportOf<K>));
    }).finally(() => this.waiting.delete(key));
  }

  private until<T>(deadline: number, what: string, register: (resolve: (value: T) => void) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const ms = Math.max(0, deadline - performance.now());
      const timer = setTimeout(() => reject(new Error(`no ${what} within the deadline (${Math.round(ms)} ms)`)), ms);
      register((value) => {
        clearTimeout(timer);
        resolve(value);
      });
    });
  }
}
