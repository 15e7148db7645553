import type { Store } from '../store/store.js';
import type { Instruments } from './instruments.js';
import { ATTR } from './names.js';

/** The parts of the Store port whose calls are timed (store/store.ts). */
const PARTS = [
  'runs',
  'runEvents',
  'idempotency',
  'apiKeys',
  'factories',
  'secrets',
  'webhooks',
  'automations',
  'definitions',
  'deliveries',
  'rateLimits',
] as const;

/**
 * The store with each call of its parts timed into `agentrun.store.duration` (operation
 * `runs.claimNext`, outcome `ok` or `error`). Only made when a meter records: without an SDK the
 * store is used as given. Each part is a Proxy whose method wrappers are made once per method.
 */
export function instrumentStore(store: Store, instruments: Instruments): Store {
  const parts = new Map<string | symbol, unknown>();
  for (const name of PARTS) {
    const part = store[name] as object | undefined;
    if (part) parts.set(name, timedPart(name, part, instruments));
  }
  // The store's own methods (close, isUnavailable) run on the store itself, not on the Proxy: a
  // class with #private fields would refuse the Proxy as `this`.
  const own = new Map<string | symbol, unknown>();
  return new Proxy(store, {
    get(target, property) {
      const part = parts.get(property);
      if (part) return part;
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      let bound = own.get(property);
      if (!bound) own.set(property, (bound = value.bind(target)));
      return bound;
    },
  });
}

function timedPart(partName: string, part: object, instruments: Instruments): object {
  const wrappers = new Map<string | symbol, unknown>();
  return new Proxy(part, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      let wrapper = wrappers.get(property);
      if (!wrapper) {
        const ok = { [ATTR.operation]: `${partName}.${String(property)}`, [ATTR.outcome]: 'ok' };
        const failed = { ...ok, [ATTR.outcome]: 'error' };
        wrapper = (...args: unknown[]) => {
          const started = performance.now();
          const record = (attributes: typeof ok) => instruments.storeDuration.record((performance.now() - started) / 1000, attributes);
          const result = (value as (...a: unknown[]) => unknown).apply(target, args);
          if (!(result instanceof Promise)) {
            record(ok);
            return result;
          }
          return result.then(
            (v) => {
              record(ok);
              return v;
            },
            (error: unknown) => {
              record(failed);
              throw error;
            },
          );
        };
        wrappers.set(property, wrapper);
      }
      return wrapper;
    },
  });
}
