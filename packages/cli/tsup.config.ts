import { defineConfig } from 'tsup';

// A program, not a library: one ESM file with its `#!/usr/bin/env node` line, for the `bin` of
// package.json; its dependencies stay imports, resolved from node_modules at run time. So not the
// shared packageBuild (CJS and .d.ts serve importers, and nothing imports a command line).
export default defineConfig({
  entry: ['src/main.ts'],
  format: ['esm'],
  tsconfig: '../../tsconfig.base.json',
  clean: true,
  sourcemap: true,
  target: 'node22',
});
