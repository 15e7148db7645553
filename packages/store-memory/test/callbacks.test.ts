import { describeCallbacksConformance } from '@agentrun/core/testing';
import { createMemoryStore } from '../src/index.js';

describeCallbacksConformance('memory', { create: () => createMemoryStore() });
