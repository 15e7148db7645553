import type { KnipConfig } from 'knip';

/**
 * `npm run knip` (part of `npm run lint`): unused files, dependencies and exports fail the lint
 * (docs/development.md, "Dead code: knip"). Knip finds most entry points itself: each workspace's
 * package.json `exports` (through the `agentrun-source` condition, so a new subpath export is an
 * entry with no change here), its npm scripts (bench, scripts/), Vitest's test files and tsup's
 * entries (core's `#crypto` halves). Listed here is only what nothing names as a module.
 */
const config: KnipConfig = {
  // Strict: an export no other module imports fails too, even when its own module uses it. A name
  // is exported because something outside needs it, or it is not exported.
  ignoreExportsUsedInFile: false,
  // A system tool, not an npm package: clients/python/python.test.ts runs it when installed (.ci/run installs it).
  // unshare, mount and umount (util-linux): the process executor's PID namespace and its tests,
  // and the secret hunt's agent trying to mount and to uncover the host's /proc
  // (docs/executors.md, "Isolating the agent").
  // flock (util-linux): @agentrun/git-sources serializes fetches into a shared cache with it, and its tests hold its lock.
  // mkfifo (coreutils): the process executor's artifact test puts a FIFO where the agent names a file.
  // chattr (e2fsprogs): the process executor's test makes a file not even root can remove.
  // valgrind, and setarch (util-linux): the `instructions` bench counts instructions under callgrind
  // without address-space randomization, and is skipped without valgrind.
  // podman and ldd: the container executor's tests start a Podman service and build images holding
  // Node and its shared libraries (scripts/podman-setup.sh installs Podman; docs/executors.md, "Docker and Podman").
  ignoreBinaries: ['mypy', 'unshare', 'mount', 'umount', 'flock', 'mkfifo', 'chattr', 'valgrind', 'setarch', 'podman', 'ldd'],
  workspaces: {
    '.': {
      // Started as files, not imported: the README's examples (test/examples.test.ts runs them),
      // the preload that test passes to `node --import`, and the fresh-clone check .ci/run runs.
      entry: ['examples/*.mjs', 'test/support/*.mjs', 'scripts/check-fresh-clone.mjs'],
      // Run as binaries from node_modules/.bin by scripts/lint-packages.mjs.
      // preact: tsconfig.base.json's jsxImportSource, for the dashboard's app (a devDependency there).
      // Claude Code and Codex, agent CLIs the harnesses run (docs/harnesses.md): found on PATH
      // (node_modules/.bin) by the executor and its tests, never imported (knip sees Gemini CLI's
      // `gemini` binary named in a test).
      ignoreDependencies: ['publint', '@arethetypeswrong/cli', 'preact', '@anthropic-ai/claude-code', '@openai/codex'],
    },
    'packages/dashboard': {
      // The app's entry: bundled by scripts/build-app.ts (esbuild) into dist/app/, not imported.
      entry: ['src/app/main.tsx'],
    },
    'packages/core': {
      // Optional peers on purpose: only @agentrun/core/testing (the store conformance suite) uses
      // them, and only a host that runs that suite needs them installed.
      ignoreDependencies: ['fast-check', 'vitest'],
    },
  },
};

export default config;
