import { describeDefinitionsConformance } from '@agentrun/core/testing';
import { createMemoryStore } from '../src/index.js';

describeDefinitionsConformance('memory', { create: () => createMemoryStore() });
