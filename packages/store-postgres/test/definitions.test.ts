import { describeDefinitionsConformance } from '@agentrun/core/testing';
import { afterAll, beforeAll } from 'vitest';
import { openTestDatabase, type TestDatabase } from './support/database.js';

// Definition files applied as on the memory store, with the same answers; each apply one transaction.
let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase('definitions');
});
afterAll(() => database?.close());

describeDefinitionsConformance('postgres', { create: () => database.freshStore() });
