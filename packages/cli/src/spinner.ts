import type { Io } from './command.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface Spinner {
  update(text: string): void;
  stop(): void;
}

/**
 * A progress line on stderr, redrawn in place: only when stderr is a terminal, so logs and pipes
 * get no control characters (docs/cli.md, "run").
 */
export function startSpinner(io: Io, text: string): Spinner {
  if (!io.stderr.isTTY) return { update() {}, stop() {} };
  let frame = 0;
  let label = text;
  const draw = () => io.stderr.write(`\r\x1b[K${FRAMES[frame++ % FRAMES.length]} ${label}`);
  draw();
  const timer = setInterval(draw, 80);
  timer.unref();
  return {
    update(next) {
      label = next;
      draw();
    },
    stop() {
      clearInterval(timer);
      io.stderr.write('\r\x1b[K');
    },
  };
}
