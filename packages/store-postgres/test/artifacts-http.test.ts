import { describeArtifactsHttpConformance } from '@agentrun/core/testing';
import { afterAll, beforeAll } from 'vitest';
import { createPostgresBlobStore, type PostgresStore } from '../src/index.js';
import { openTestDatabase, type TestDatabase } from './support/database.js';

// Artifacts end to end on PostgreSQL: the records in `artifacts`, the bytes in `artifact_blobs`.
let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase('artifacts_http');
});
afterAll(() => database?.close());

describeArtifactsHttpConformance('postgres', {
  create: async () => {
    const store = (await database.freshStore()) as PostgresStore;
    return { store, blobs: createPostgresBlobStore(store) };
  },
});
