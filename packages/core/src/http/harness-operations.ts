import type { AvailableHarnesses } from '../harness/harness-check.js';
import type { OperationHandlers } from './operation.js';
import { jsonResponse } from './responses.js';

/** `GET /agent/harnesses`: what this server's executor runs; none known, an empty list (docs/harnesses.md). */
export function harnessOperations(available: AvailableHarnesses | undefined): OperationHandlers<'listHarnesses'> {
  return {
    listHarnesses: async () => jsonResponse({ harnesses: (await available?.()) ?? [] }),
  };
}
