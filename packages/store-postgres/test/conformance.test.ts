import { describeStoreConformance } from '@agentrun/core/testing';
import { afterAll, beforeAll } from 'vitest';
import { openTestDatabase, type TestDatabase } from './support/database.js';

// The same suite the memory store passes, against PostgreSQL (or PGlite where no server answers).
let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase('conformance');
});
afterAll(() => database?.close());

describeStoreConformance('postgres', {
  create: () => database.freshStore(),
  // Stores share the file's pool; the schema is dropped after the file.
  destroy: () => {},
  listCases: 40,
});
