#!/bin/sh
# Stands in for git in the tests: records each call's argv and the names (not the values) of its
# environment, a few lines each, then runs the real git with the same argv and environment.
log="${AGENTRUN_TEST_GIT_LOG:-/dev/null}"
{
  printf 'argv:'
  for arg in "$@"; do printf ' %s' "$arg"; done
  printf '\nenv: %s\n' "$(env | cut -d= -f1 | tr '\n' ' ')"
  # The parent's argv too: flock(1), for a fetch, which ps and /proc show to every user.
  printf 'parent: %s\n' "$(tr '\0' ' ' <"/proc/$PPID/cmdline")"
} >>"$log"
exec git "$@"
