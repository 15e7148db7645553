import { defineConfig, type Options } from 'tsup';

/** The one build every package uses: ESM + CJS + .d.ts for Node 20, from the given entries. */
export const packageBuild = (entry: string[]): Options | Options[] =>
  defineConfig({
    entry,
    format: ['esm', 'cjs'],
    dts: { compilerOptions: { composite: false } },
    tsconfig: '../../tsconfig.base.json',
    clean: true,
    sourcemap: true,
    target: 'node20',
  }) as Options;
