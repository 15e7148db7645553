import { describeArtifactsHttpConformance } from '@agentrun/core/testing';
import { createMemoryBlobStore, createMemoryStore } from '../src/index.js';

describeArtifactsHttpConformance('memory', { create: () => ({ store: createMemoryStore(), blobs: createMemoryBlobStore() }) });
