import { describeSchedulesConformance } from '@agentrun/core/testing';
import { createMemoryStore } from '../src/index.js';

describeSchedulesConformance('memory', { create: () => createMemoryStore() });
