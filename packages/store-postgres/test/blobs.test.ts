import { describeBlobStoreConformance } from '@agentrun/core/testing';
import { afterAll, beforeAll } from 'vitest';
import { createPostgresBlobStore, type PostgresStore } from '../src/index.js';
import { openTestDatabase, type TestDatabase } from './support/database.js';

// The blob store conformance suite on the `artifact_blobs` table.
let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase('blobs');
});
afterAll(() => database?.close());

describeBlobStoreConformance('postgres', async () => createPostgresBlobStore((await database.freshStore()) as PostgresStore));
