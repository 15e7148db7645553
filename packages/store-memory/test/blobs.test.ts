import { describeBlobStoreConformance } from '@agentrun/core/testing';
import { createMemoryBlobStore } from '../src/index.js';

describeBlobStoreConformance('memory', () => createMemoryBlobStore());
