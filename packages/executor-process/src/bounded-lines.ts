/**
 * Lines of an agent's stdout, each at most `maxChars` long, holding at most that much while a line
 * is open: an agent that writes without newlines cannot make the worker buffer without bound. A
 * longer line is cut at `maxChars` (marked as cut) and the rest of it, up to its newline, dropped.
 * A `\r` before the newline is removed.
 */
export const CUT_MARK = ' …[line cut]';

export interface LineSplitter {
  /** Feed decoded text as it arrives. */
  write(chunk: string): void;
  /** The stream ended: the last line, if it has no newline. */
  end(): void;
}

export function boundedLines(maxChars: number, onLine: (line: string) => void): LineSplitter {
  let pending = '';
  let dropping = false;
  const emit = (line: string) => onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
  return {
    write(chunk) {
      let start = 0;
      for (;;) {
        const newline = chunk.indexOf('\n', start);
        if (!dropping) {
          pending += newline === -1 ? chunk.slice(start) : chunk.slice(start, newline);
          if (pending.length > maxChars) {
            onLine(pending.slice(0, maxChars) + CUT_MARK);
            pending = '';
            dropping = true;
          }
        }
        if (newline === -1) return;
        if (!dropping) emit(pending);
        pending = '';
        dropping = false;
        start = newline + 1;
      }
    },
    end() {
      if (!dropping && pending !== '') emit(pending);
      pending = '';
    },
  };
}
