import { defineConfig, type Options } from 'tsup';

/** What a package builds beyond its public entries. */
export interface BuildExtras {
  /**
   * Modules built beside the entries (ESM + CJS, no .d.ts) that only the package's own `imports`
   * reach, such as core's `#crypto` halves (docs/signatures.md, "Hashing").
   */
  internal?: string[];
  /** Specifiers left as they are, for the host's runtime to resolve (e.g. `#crypto`). */
  external?: string[];
  /**
   * Packages whose imported values are copied into the output, read from their TypeScript sources
   * (the `agentrun-source` condition), where the package would otherwise load them at run time.
   */
  bundle?: string[];
}

/**
 * `AGENTRUN_BUILD=js` leaves out the .d.ts files: the JavaScript alone is a few seconds' work where
 * the declarations take a minute on a small machine, and it is all `npm install` needs for the
 * bin, `npm start` and the examples to run (scripts/prepare.mjs; docs/development.md, "What `npm
 * install` builds"). `npm run build`, packing and publishing always build everything.
 */
const javascriptOnly = process.env.AGENTRUN_BUILD === 'js';

/** The one build every package uses: ESM + CJS + .d.ts for Node 22, from the given public entries. */
export const packageBuild = (entry: string[], extras: BuildExtras = {}): Options | Options[] =>
  defineConfig({
    entry: [...entry, ...(extras.internal ?? [])],
    format: ['esm', 'cjs'],
    dts: javascriptOnly ? false : { entry, compilerOptions: { composite: false } },
    external: extras.external ?? [],
    noExternal: extras.bundle ?? [],
    esbuildOptions(options) {
      if (extras.bundle) options.conditions = ['agentrun-source', ...(options.conditions ?? [])];
    },
    // Its `customConditions: ["agentrun-source"]` lets the .d.ts build read sibling packages'
    // sources, so packages build in any order (docs/development.md, "How packages resolve to their sources").
    tsconfig: '../../tsconfig.base.json',
    clean: true,
    sourcemap: true,
    target: 'node22',
  }) as Options;
