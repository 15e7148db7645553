import { defineConfig, type Options } from 'tsup';

/** The one build every package uses: ESM + CJS + .d.ts for Node 20, from the given entries. */
export const packageBuild = (entry: string[]): Options | Options[] =>
  defineConfig({
    entry,
    format: ['esm', 'cjs'],
    dts: { compilerOptions: { composite: false } },
    // Its `customConditions: ["agentrun-source"]` lets the .d.ts build read sibling packages'
    // sources, so packages build in any order (docs/development.md, "How packages resolve to their sources").
    tsconfig: '../../tsconfig.base.json',
    clean: true,
    sourcemap: true,
    target: 'node20',
  }) as Options;
