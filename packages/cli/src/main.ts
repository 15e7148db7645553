#!/usr/bin/env node
// The `agentrun` binary (docs/cli.md). Everything is in cli.ts, which takes its streams and
// environment as arguments so that nothing here needs testing beyond starting it.
import { runCli } from './cli.js';

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
});
