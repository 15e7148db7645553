import { vi } from 'vitest';

// Run before each file of the `shared` project (vitest.config.ts), in the worker the files before
// it ran in: real timers and unspied functions, whatever an earlier file failed to restore.
vi.useRealTimers();
vi.restoreAllMocks();
