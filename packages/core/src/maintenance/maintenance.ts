import { missingCipher, type SecretCipher } from '../control/secret-cipher.js';
import type { Store } from '../store/store.js';
import { type Clock, isoTime, systemClock } from '../util/clock.js';
import { auditSweepTask } from './audit-sweep.js';
import {
  type CallbackResealReport,
  type ResealOptions,
  type ResealReport,
  resealCallbackSecrets,
  resealSecrets,
} from './reseal-secrets.js';

/**
 * Housekeeping that keeps the store bounded: expired idempotency keys and old delivery-log
 * entries. It runs on a runner's timer (its `maintenance` part, `agentrun.runner()`), not from request traffic, and
 * every failure goes to `onError` (docs/embedding.md, "Maintenance"). Tasks delete only what
 * has expired, so several workers running them at once is harmless.
 */
export interface MaintenanceTask {
  name: string;
  /** How often it runs. */
  everyMs: number;
  /** Resolves to how many records it removed. */
  run(now: number): Promise<number>;
}

export interface Maintenance {
  readonly tasks: readonly MaintenanceTask[];
  /**
   * Start every task whose period has passed (and is not still running), or of those only the
   * ones `select` picks (a runner's part, runner/runner-parts.ts); resolves when they end, to the
   * failures (each already given to `onError`).
   */
  runDue(select?: (task: MaintenanceTask) => boolean): Promise<{ errors: unknown[] }>;
  /** Run every task now; resolves to what each removed. */
  runAll(): Promise<Record<string, number>>;
  /** Re-seal every team secret with the key that seals now; on demand, never on the timer (reseal-secrets.ts). */
  resealSecrets(options?: ResealOptions): Promise<ResealReport>;
  /** The same for the run-state callbacks' signing secrets (docs/callbacks.md). */
  resealCallbackSecrets(options?: { batchSize?: number }): Promise<CallbackResealReport>;
}

export interface MaintenanceOptions {
  store: Store;
  clock?: Clock;
  /** Every failure of a task (a store outage too: the caller decides what to throttle). */
  onError: (error: unknown) => void;
  /** The cipher of `secretKey`, for `resealSecrets` (without one it answers 503). */
  cipher?: SecretCipher;
  /** Default: {@link defaultMaintenanceTasks}. */
  tasks?: readonly MaintenanceTask[];
  /** How long the default audit sweep keeps events (audit-sweep.ts); ignored when `tasks` is given. */
  auditRetentionMs?: number;
}

/** The delivery log keeps at least each webhook's newest 50 entries and 7 days (docs/management-api.md, "The delivery log"). */
export const DELIVERY_RETENTION = { maxAgeMs: 7 * 24 * 60 * 60 * 1000, keepNewest: 50, sweepEveryMs: 10 * 60 * 1000 } as const;

/** How often the stats fold their rollups (docs/stores.md, "Stats"). */
const STATS_COMPACT_EVERY_MS = 60 * 1000;

/** How often expired idempotency keys are deleted; they answer as absent from the moment they expire. */
const IDEMPOTENCY_PURGE_EVERY_MS = 5 * 60 * 1000;

export const defaultMaintenanceTasks = (store: Store, auditRetentionMs?: number): MaintenanceTask[] => [
  {
    name: 'idempotency-purge',
    everyMs: IDEMPOTENCY_PURGE_EVERY_MS,
    run: (now) => store.idempotency.purgeExpired(isoTime(now)),
  },
  {
    name: 'delivery-log-sweep',
    everyMs: DELIVERY_RETENTION.sweepEveryMs,
    run: (now) => store.deliveries.sweep(isoTime(now - DELIVERY_RETENTION.maxAgeMs), DELIVERY_RETENTION.keepNewest),
  },
  auditSweepTask(store, auditRetentionMs),
  {
    // Callback deliveries that succeeded or failed, kept as long as the delivery log (docs/callbacks.md, "Limits").
    name: 'callback-log-sweep',
    everyMs: DELIVERY_RETENTION.sweepEveryMs,
    run: (now) => store.callbacks.sweep(isoTime(now - DELIVERY_RETENTION.maxAgeMs)),
  },
  {
    // The stats' rollups: folded each minute, so what a read adds up besides them stays small (docs/stores.md, "Stats").
    name: 'stats-rollups',
    everyMs: STATS_COMPACT_EVERY_MS,
    run: (now) => store.stats.compact({ now: isoTime(now) }),
  },
];

export function createMaintenance(options: MaintenanceOptions): Maintenance {
  const clock = options.clock ?? systemClock;
  const tasks = options.tasks ?? defaultMaintenanceTasks(options.store, options.auditRetentionMs);
  // Each task's last start; a failed run is tried again at the next call rather than a period later.
  const lastStart = new Map<string, number>();
  const running = new Map<string, Promise<number | undefined>>();

  const start = (task: MaintenanceTask, now: number, errors?: unknown[]): Promise<number | undefined> => {
    const previous = lastStart.get(task.name);
    lastStart.set(task.name, now);
    const run = task
      .run(now)
      .catch((error: unknown) => {
        if (previous === undefined) lastStart.delete(task.name);
        else lastStart.set(task.name, previous);
        options.onError(error);
        errors?.push(error);
        return undefined;
      })
      .finally(() => running.delete(task.name));
    running.set(task.name, run);
    return run;
  };

  return {
    tasks,
    async runDue(select) {
      const now = clock.now();
      const errors: unknown[] = [];
      const started = tasks
        .filter((task) => select?.(task) ?? true)
        .filter((task) => !running.has(task.name) && now - (lastStart.get(task.name) ?? Number.NEGATIVE_INFINITY) >= task.everyMs)
        .map((task) => start(task, now, errors));
      await Promise.all(started);
      return { errors };
    },
    async runAll() {
      const now = clock.now();
      const removed: Record<string, number> = {};
      for (const task of tasks) removed[task.name] = (await (running.get(task.name) ?? start(task, now))) ?? 0;
      return removed;
    },
    resealSecrets: (resealOptions) => resealSecrets(options.store.secrets, options.cipher ?? missingCipher, resealOptions),
    resealCallbackSecrets: async (resealOptions = {}) => {
      const cipher = options.cipher ?? missingCipher;
      // Without a key this rejects at once with the cipher's own 503, as resealSecrets does.
      await cipher.isCurrent('');
      return resealCallbackSecrets(options.store.callbacks, cipher, resealOptions.batchSize);
    },
  };
}
