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
  /**
   * From now on only lines that start with `prefix` are split out; the others are skipped by a
   * search for a newline followed by `prefix`, not line by line: once a run's output budget is
   * spent, output it drops costs the worker little more than its decoding (output-budget.ts).
   */
  onlyStartingWith(prefix: string): void;
}

export function boundedLines(maxChars: number, onLine: (line: string) => void): LineSplitter {
  let pending = '';
  let dropping = false;
  let only: string | undefined;
  const emit = (line: string) => onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
  /** `only`'s write: `dropping` skips to the next newline followed by the prefix. */
  const writeOnly = (chunk: string, prefix: string) => {
    let start = 0;
    for (;;) {
      if (dropping) {
        const at = chunk.indexOf(`\n${prefix}`, start);
        if (at === -1) {
          // The chunk may end in a line start that could still become the prefix: decide with the next.
          const last = chunk.lastIndexOf('\n');
          const tail = last >= start ? chunk.slice(last + 1) : undefined;
          if (tail !== undefined && prefix.startsWith(tail)) {
            pending = tail;
            dropping = false;
          }
          return;
        }
        dropping = false;
        start = at + 1;
      }
      const newline = chunk.indexOf('\n', start);
      pending += newline === -1 ? chunk.slice(start) : chunk.slice(start, newline);
      const candidate = pending.startsWith(prefix) || (newline === -1 && prefix.startsWith(pending));
      if (candidate && pending.length > maxChars) onLine(pending.slice(0, maxChars) + CUT_MARK);
      if (!candidate || pending.length > maxChars) {
        pending = '';
        dropping = true;
        if (newline === -1) return;
        start = newline; // the search for "\n" + prefix starts at this line's newline
        continue;
      }
      if (newline === -1) return;
      emit(pending);
      pending = '';
      start = newline + 1;
    }
  };
  return {
    onlyStartingWith(prefix) {
      only = prefix;
      // A line under way that cannot start with it is skipped from here.
      if (!dropping && !(pending.startsWith(prefix) || prefix.startsWith(pending))) {
        pending = '';
        dropping = true;
      }
    },
    write(chunk) {
      if (only !== undefined) return writeOnly(chunk, only);
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
      if (!dropping && pending !== '' && (only === undefined || pending.startsWith(only))) emit(pending);
      pending = '';
    },
  };
}
