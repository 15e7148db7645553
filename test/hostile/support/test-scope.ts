import { rmSync } from 'node:fs';
import type { Worker } from '@agentrun/core';
import { afterEach } from 'vitest';

/** What a hostile case leaves to clean up: its workspace root and its worker. */
export interface TestScope {
  root?: string;
  worker?: Worker;
}

/** A scope whose worker is stopped and whose workspace root is removed after each test (registered here, in the describe block). */
export function testScope(): TestScope {
  const scope: TestScope = {};
  afterEach(async () => {
    await scope.worker?.stop();
    scope.worker = undefined;
    if (scope.root) rmSync(scope.root, { recursive: true, force: true });
    scope.root = undefined;
  });
  return scope;
}
