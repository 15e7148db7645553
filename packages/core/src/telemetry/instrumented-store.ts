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
  'repositories',
  'factorySources',
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
  const own = new Map<string | symbol, { of: unknown; bound: unknown }>();
  return new Proxy(store, {
    get(target, property) {
      const part = parts.get(property);
      if (part) return part;
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const cached = own.get(property);
      if (cached && cached.of === value) return cached.bound;
      const bound = value.bind(target);
      own.set(property, { of: value, bound });
      return bound;
    },
  });
}

function timedPart(partName: string, part: object, instruments: Instruments): object {
  // Per method, its wrapper, made again if the method was replaced (a test's stub, a host's patch).
  const wrappers = new Map<string | symbol, { of: unknown; wrapper: unknown }>();
  return new Proxy(part, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const cached = wrappers.get(property);
      let wrapper = cached && cached.of === value ? cached.wrapper : undefined;
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
        wrappers.set(property, { of: value, wrapper });
      }
      return wrapper;
    },
  });
}
