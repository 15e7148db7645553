/**
 * Make instances of `Lazy` pass for instances of a Web class (`Request`, `Response`): every member
 * of `web.prototype` that `Lazy` does not define itself is forwarded to the real object its
 * `real()` makes on first use, and the prototype chain runs through `web.prototype`, so
 * `instanceof` holds. Members are listed from the prototype itself, so those a newer runtime
 * adds are covered too. This is how a request or response stays cheap until something needs
 * more of it than the few members its lazy class answers directly.
 */
export function forwardToReal<W extends object>(Lazy: { prototype: { real(): W } }, web: { prototype: W }): void {
  const lazy = Lazy.prototype as object;
  for (const name of Object.getOwnPropertyNames(web.prototype)) {
    if (name === 'constructor' || Object.hasOwn(lazy, name)) continue;
    const descriptor = Object.getOwnPropertyDescriptor(web.prototype, name) as PropertyDescriptor;
    if (typeof descriptor.value === 'function') {
      const method = descriptor.value as (...args: unknown[]) => unknown;
      Object.defineProperty(lazy, name, {
        value(this: { real(): W }, ...args: unknown[]) {
          return method.apply(this.real(), args);
        },
        configurable: true,
        writable: true,
      });
    } else if (descriptor.get) {
      const getter = descriptor.get;
      Object.defineProperty(lazy, name, {
        get(this: { real(): W }) {
          return getter.call(this.real());
        },
        configurable: true,
      });
    }
  }
  Object.setPrototypeOf(lazy, web.prototype);
}
