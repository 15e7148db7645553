import type { Notification, NotificationListener, Notifications } from './notification.js';

/** Fans published notifications out to listeners: what a store builds its `notifications` on. */
export interface NotificationHub extends Notifications {
  /** Deliver `notification` to every current listener, asynchronously (never inside the caller). */
  publish(notification: Notification): void;
  /** How many listeners there are (a store may keep a connection only while there are some). */
  readonly size: number;
  /** Forget every listener (the store closed). */
  clear(): void;
}

const logListenerError = (error: unknown) => console.error('[agentrun] notification listener failed', error);

/**
 * An in-process hub. Each notification reaches listeners in a microtask of its own, so a store
 * publishing from inside a write never runs listener code there, and a listener that throws
 * reaches `onError` without stopping the others (docs/stores.md, "Notifications").
 */
export function createNotificationHub(onError: (error: unknown) => void = logListenerError): NotificationHub {
  const listeners = new Set<NotificationListener>();
  return {
    async listen(listener) {
      // Wrapped, so the same function listening twice is two listeners with their own stop.
      const entry: NotificationListener = (n) => listener(n);
      listeners.add(entry);
      return async () => {
        listeners.delete(entry);
      };
    },
    publish(notification) {
      if (listeners.size === 0) return;
      const current = [...listeners];
      queueMicrotask(() => {
        for (const listener of current) {
          // A listener removed since the publish no longer hears it.
          if (!listeners.has(listener)) continue;
          try {
            listener(notification);
          } catch (error) {
            try {
              onError(error);
            } catch {
              // A failing error report must not become an uncaught exception in a microtask.
            }
          }
        }
      });
    },
    get size() {
      return listeners.size;
    },
    clear() {
      listeners.clear();
    },
  };
}
