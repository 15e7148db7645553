import type { FastifyBaseLogger } from 'fastify';

/** A function that does nothing: `function noop () { }`, as abstract-logging writes it. */
const EMPTY_FUNCTION = /^function\s*[\w$]*\s*\(\s*\)\s*\{\s*\}$/;
const emptyFunctions = new WeakMap<object, boolean>();

/**
 * Whether Fastify's request logger may print an `info` line (agentrun's request line). pino says
 * so by its level (`isLevelEnabled`); Fastify without a logger (`logger: false`, the default)
 * hands out abstract-logging, whose methods are empty functions. Anything else is assumed to
 * print. When it cannot, agentrun gathers no request line for it; its errors still go to it.
 */
export function printsInfo(log: FastifyBaseLogger): boolean {
  const { isLevelEnabled } = log as { isLevelEnabled?: (level: string) => boolean };
  if (typeof isLevelEnabled === 'function') return isLevelEnabled.call(log, 'info');
  const info = log.info as object;
  let empty = emptyFunctions.get(info);
  if (empty === undefined) {
    empty = EMPTY_FUNCTION.test(Function.prototype.toString.call(info));
    emptyFunctions.set(info, empty);
  }
  return !empty;
}
