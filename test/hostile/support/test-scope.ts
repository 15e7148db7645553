import { rmSync } from 'node:fs';
import type { Worker } from '@agentrun/core';
import { afterEach } from 'vitest';

/** What a hostile case leaves to clean up: its workspace root and its worker. */
export interface TestScope {
  root?: string;
  worker?: Worker;
  /** More to close after the test (a server it started), after the worker stopped. */
  cleanups?: (() => unknown)[];
}

/** A scope whose worker is stopped and whose workspace root is removed after each test (registered here, in the describe block). */
export function testScope(): TestScope {
  const scope: TestScope = {};
  afterEach(async () => {
    await scope.worker?.stop();
    scope.worker = undefined;
    for (const cleanup of scope.cleanups?.splice(0) ?? []) await cleanup();
    if (scope.root) rmSync(scope.root, { recursive: true, force: true });
    scope.root = undefined;
  });
  return scope;
}
