#!/usr/bin/env node
// The `agentrun` command (docs/cli.md): the built program in ../dist/main.js. The bin is this
// committed file rather than dist/main.js itself because npm links a workspace's bin at install
// time only when its target exists, and dist/ is built after the links (by the root's `prepare`
// script in a clone; before publishing in a package).
try {
  await import('../dist/main.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/main.js')) throw error;
  process.stderr.write('agentrun: the command line is not built (no dist/main.js); run `npm run build` in the repository\n');
  process.exitCode = 70;
}
