import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests run on source: every workspace package resolves to its src/ entry, so no build is needed.
const src = (path: string) => fileURLToPath(new URL(`./packages/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@agentrun\/core\/testing$/, replacement: src('core/src/testing/index.ts') },
      { find: /^@agentrun\/core$/, replacement: src('core/src/index.ts') },
      { find: /^@agentrun\/node$/, replacement: src('node/src/index.ts') },
      { find: /^@agentrun\/store-memory$/, replacement: src('store-memory/src/index.ts') },
      { find: /^@agentrun\/store-postgres$/, replacement: src('store-postgres/src/index.ts') },
      { find: /^@agentrun\/adapter-express$/, replacement: src('adapter-express/src/index.ts') },
      { find: /^@agentrun\/adapter-fastify$/, replacement: src('adapter-fastify/src/index.ts') },
      { find: /^@agentrun\/server$/, replacement: src('server/src/index.ts') },
    ],
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 20_000,
  },
});
