import { describeEnvironmentsConformance } from '@agentrun/core/testing';
import { createMemoryStore } from '../src/index.js';

describeEnvironmentsConformance('memory', { create: () => createMemoryStore() });
