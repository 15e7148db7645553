import { describeStoreConformance } from '@agentrun/core/testing';
import { createMemoryStore } from '../src/index.js';

describeStoreConformance('memory', { create: () => createMemoryStore(), listCases: 200 });
