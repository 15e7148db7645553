import { configDefaults, defineConfig } from 'vitest/config';

// Tests run on source: every workspace package's package.json `exports` has an `agentrun-source`
// condition pointing at its src/ entry, so no build (and no list of packages here) is needed
// (docs/development.md, "How packages resolve to their sources"). Vitest merges these with its
// default conditions, and passes the server ones on to its worker processes as `--conditions`.
const conditions = ['agentrun-source'];

// examples/filter-rules: a team's own filter tests, as docs/filters.md shows them, run as written.
// clients/python/python.test.ts: the Python client's unittest suite and mypy (docs/python.md).
const everyTest = ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts', 'clients/*/*.test.ts'];

// Files that share their worker process with the files before them (docs/development.md, "Running
// the tests"): a file's own modules load again, the packages' sources once per worker. What runs
// agents, sandboxes or another language stays one process per file.
const ownProcess = [
  'test/hostile/**/*.test.ts',
  'test/harnesses/**/*.test.ts',
  'clients/*/*.test.ts',
  'packages/executor-process/test/**/*.test.ts',
  'packages/executor-container/test/**/*.test.ts',
  'packages/harnesses/test/**/*.test.ts',
];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    testTimeout: 20_000,
    // Much of the suite waits (on PostgreSQL, child processes, timers) rather than computes: three
    // files at a time on two cores (docs/development.md, "Running the tests").
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: everyTest,
          exclude: [...configDefaults.exclude, ...ownProcess],
          isolate: false,
          // What a file may leave behind in its worker (fake timers, spies), undone before the next.
          setupFiles: ['test/support/shared-worker.ts'],
        },
      },
      {
        extends: true,
        test: { name: 'own-process', include: ownProcess },
      },
    ],
  },
});
