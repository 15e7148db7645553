import { describeSchedulesConformance } from '@agentrun/core/testing';
import { afterAll, beforeAll } from 'vitest';
import { openTestDatabase, type TestDatabase } from './support/database.js';

// Schedules as on the memory store, with the same answers.
let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase('schedules');
});
afterAll(() => database?.close());

describeSchedulesConformance('postgres', { create: () => database.freshStore() });
