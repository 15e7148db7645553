/**
 * Where a large JSON text can be cut, found while it is scanned (json-text-scan.ts), so that it
 * can be parsed a part at a time (json-parse-in-parts.ts; docs/run-api.md, "Sizes first"). One
 * JSON.parse of a whole body holds the event loop about 1 ms a MB, and up to 45 ms a MB when
 * the body is objects of many distinct keys: a 4 MiB body of them held it 140 ms.
 *
 * A span is an array, object or string longer than `PART_CHARS`: its text offsets (of its
 * opening bracket or quote, and its closing one), where it may be cut, and the spans directly
 * inside it. A container is cut at its own commas, about every `PART_CHARS`, so each part is
 * its items from one cut to the next, the spans inside it aside; a string is cut between
 * characters (never inside an escape). Offsets count UTF-16 units of the whole text.
 */
export interface JsonSpan {
  kind: 'array' | 'object' | 'string';
  start: number;
  end: number;
  /** Containers: the offsets of the commas it is cut at; strings: the offsets its parts start at. */
  cuts: number[];
  /** Containers: the spans directly inside, in order. */
  children: JsonSpan[];
  /** Strings: no backslash in it (its text is its value). */
  plain: boolean;
}

/** Spans are this long or longer, and parts about this long (UTF-16 units). */
const PART_CHARS = 128 * 1024;

export interface SpanTracker {
  /** `PART_CHARS`, unless a test asks for shorter parts. */
  readonly partChars: number;
  open(at: number, isArray: boolean): void;
  comma(at: number): void;
  close(at: number, isArray: boolean): void;
  stringOpen(at: number): void;
  /** A place the open string may be cut: the scanner asks about every `PART_CHARS`. */
  stringCut(at: number): void;
  stringClose(at: number, plain: boolean): void;
  /** A colon outside strings: the string before it was a key. */
  colon(): void;
  /** The spans outside any other (one for a JSON text), and why the text is refused, if it is (a sentence). */
  result(): { roots: JsonSpan[]; unfit: string | undefined };
}

interface Frame {
  start: number;
  isArray: boolean;
  lastCut: number;
  cuts: number[];
  children: JsonSpan[];
}

export function createSpanTracker(partChars = PART_CHARS): SpanTracker {
  const stack: Frame[] = [];
  const roots: JsonSpan[] = [];
  let unfit: string | undefined;
  let string: { start: number; cuts: number[] } | undefined;
  // The last span closed, until the next token: a string span followed by a colon is a key.
  let lastStringSpan: JsonSpan | undefined;

  const place = (span: JsonSpan) => {
    const parent = stack[stack.length - 1];
    (parent ? parent.children : roots).push(span);
  };

  return {
    partChars,
    open(at, isArray) {
      lastStringSpan = undefined;
      stack.push({ start: at, isArray, lastCut: at, cuts: [], children: [] });
    },
    comma(at) {
      lastStringSpan = undefined;
      const frame = stack[stack.length - 1];
      if (frame && at - frame.lastCut >= partChars) {
        frame.cuts.push(at);
        frame.lastCut = at;
      }
    },
    close(at, isArray) {
      lastStringSpan = undefined;
      const frame = stack.pop();
      if (!frame) return;
      if (frame.isArray !== isArray) unfit ??= 'the request body is not valid JSON: a bracket closes what it did not open';
      if (at - frame.start < partChars) return;
      const { start, cuts, children } = frame;
      place({ kind: frame.isArray ? 'array' : 'object', start, end: at, cuts, children, plain: false });
    },
    stringOpen(at) {
      lastStringSpan = undefined;
      string = { start: at, cuts: [] };
    },
    stringCut(at) {
      if (!string) return;
      string.cuts.push(at);
    },
    stringClose(at, plain) {
      const open = string;
      string = undefined;
      if (!open || at - open.start < partChars) return;
      lastStringSpan = { kind: 'string', start: open.start, end: at, cuts: open.cuts, children: [], plain };
      place(lastStringSpan);
    },
    colon() {
      if (lastStringSpan) unfit ??= `the request body has a key longer than ${partChars} characters`;
      lastStringSpan = undefined;
    },
    result: () => ({ roots, unfit }),
  };
}
