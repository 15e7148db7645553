import { describeAgentIdentitiesConformance } from '@agentrun/core/testing';
import { createMemoryStore } from '../src/index.js';

describeAgentIdentitiesConformance('memory', { create: () => createMemoryStore() });
