import { describeHttpConformance } from '@agentrun/core/testing';
import { afterAll, beforeAll } from 'vitest';
import { openTestDatabase, type TestDatabase } from './support/database.js';

// The same hostile HTTP traffic the memory store answers, with the same answers.
let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase('http_conformance');
});
afterAll(() => database?.close());

describeHttpConformance('postgres', { create: () => database.freshStore(), fuzzRuns: 100 });
