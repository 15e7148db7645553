import { describeAgentIdentitiesConformance } from '@agentrun/core/testing';
import { afterAll, beforeAll } from 'vitest';
import { openTestDatabase, type TestDatabase } from './support/database.js';

// Agent identities as on the memory store, with the same answers.
let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase('agent_identities');
});
afterAll(() => database?.close());

describeAgentIdentitiesConformance('postgres', { create: () => database.freshStore() });
