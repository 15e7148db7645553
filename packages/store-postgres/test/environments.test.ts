import { describeEnvironmentsConformance } from '@agentrun/core/testing';
import { afterAll, beforeAll } from 'vitest';
import { openTestDatabase, type TestDatabase } from './support/database.js';

// Environments as on the memory store, with the same answers.
let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase('environments');
});
afterAll(() => database?.close());

describeEnvironmentsConformance('postgres', { create: () => database.freshStore() });
