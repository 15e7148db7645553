import { describeCallbacksConformance } from '@agentrun/core/testing';
import { afterAll, beforeAll } from 'vitest';
import { openTestDatabase, type TestDatabase } from './support/database.js';

// Run-state callbacks (the outbox filled by triggers on runs) as on the memory store.
let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase('callbacks');
});
afterAll(() => database?.close());

describeCallbacksConformance('postgres', { create: () => database.freshStore() });
