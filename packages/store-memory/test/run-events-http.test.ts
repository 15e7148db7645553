import { describeRunEventsHttpConformance } from '@agentrun/core/testing';
import { createMemoryStore } from '../src/index.js';

describeRunEventsHttpConformance('memory', { create: () => createMemoryStore() });
