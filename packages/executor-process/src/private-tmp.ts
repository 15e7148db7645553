/**
 * An agent's own /tmp, /var/tmp and /dev/shm, for an agent under its own user in a PID namespace
 * without the sandbox (the sandbox binds its own: sandbox.ts). Run as root inside the run's mount
 * namespace (`unshare --mount-proc` makes one, private: nothing mounted here reaches the host),
 * before `setpriv` switches to the agent's user. Each host directory is covered by the run's own
 * (run-area.ts), so what the agent writes there counts against the run's cap and goes with the run,
 * and the host's stay out of its reach. A workspace under a covered directory (the default root
 * is under /tmp) is bound first into the run's directory at the same place, so it is still there.
 *
 * `$1` the `mount` program, `$2` `mkdir`, `$3` the workspace, `$4` the run's tmp directory, `$5`
 * its shm directory; then the command (the agent's PATH, which `env.set` may replace, is not relied on).
 */
export const PRIVATE_TMP = [
  'mount=$1 mkdir=$2 workspace=$3 tmp=$4 shm=$5',
  'shift 5',
  'fail() { echo "agentrun: the run could not have a /tmp of its own" >&2; exit 125; }',
  'origin() { if [ "$1" = /dev/shm ]; then echo "$shm"; else echo "$tmp"; fi; }',
  'cover() {',
  '  [ -d "$1" ] || return 0',
  '  from=$(origin "$1")',
  '  case $workspace/ in',
  `    "$1"/*) rel=\${workspace#"$1"}; "$mkdir" -p "$from$rel" && "$mount" --bind "$workspace" "$from$rel" || return 1 ;;`,
  '  esac',
  '  "$mount" --rbind "$from" "$1"',
  '}',
  // The directory holding the run's own is covered last: until then its paths still lead there.
  'last=',
  'for dir in /var/tmp /dev/shm /tmp; do',
  '  case $workspace/ in "$dir"/*) last=$dir; continue ;; esac',
  '  cover "$dir" || fail',
  'done',
  'if [ -n "$last" ]; then cover "$last" || fail; fi',
  'exec "$@"',
].join('\n');
