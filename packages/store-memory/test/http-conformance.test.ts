import { describeHttpConformance } from '@agentrun/core/testing';
import { createMemoryStore } from '../src/index.js';

describeHttpConformance('memory', { create: () => createMemoryStore() });
