import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/testing/index.ts'],
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { composite: false } },
  tsconfig: '../../tsconfig.base.json',
  clean: true,
  sourcemap: true,
  target: 'node20',
});
