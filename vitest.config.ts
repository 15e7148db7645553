import { defineConfig } from 'vitest/config';

// Tests run on source: every workspace package's package.json `exports` has an `agentrun-source`
// condition pointing at its src/ entry, so no build (and no list of packages here) is needed
// (docs/development.md, "How packages resolve to their sources"). Vitest merges these with its
// default conditions, and passes the server ones on to its worker processes as `--conditions`.
const conditions = ['agentrun-source'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    // examples/filter-rules: a team's own filter tests, as docs/filters.md shows them, run as written.
    // clients/python/python.test.ts: the Python client's unittest suite and mypy (docs/python.md).
    include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts', 'clients/*/*.test.ts'],
    testTimeout: 20_000,
  },
});
