/**
 * Preloaded (`--import`) into every child process the harness starts. The harness holds the
 * write end of our stdin pipe; when the test process dies without stopping us (killed by a
 * timeout, crashed, Ctrl-C), the pipe closes and we stop ourselves: no child outlives its test
 * run. SIGTERM first, so the process shuts down as it would in production; exit if it hangs.
 */
process.stdin.on('end', () => {
  process.kill(process.pid, 'SIGTERM');
  setTimeout(() => process.exit(1), 5000).unref();
});
process.stdin.on('error', () => {});
process.stdin.resume();
// Reading stdin must not be what keeps the process alive once its real work is done.
(process.stdin as { unref?: () => void }).unref?.();
