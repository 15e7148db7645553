import type { JsonSpan } from './json-spans.js';

/**
 * JSON.parse of a large body a part at a time, with the event loop free between parts
 * (docs/run-api.md, "Sizes first"): the value of each span (json-spans.ts) is built from its
 * parts, each parsed alone (at most about `2 × PART_CHARS` of text, the spans inside it
 * replaced by placeholders that are then filled in); a long string is its parts' values joined.
 * The value is what JSON.parse of the whole text gives, and a text JSON.parse refuses is refused
 * (`SyntaxError`), though not always with the same words.
 */
export async function parseInParts(text: PiecedText, roots: readonly JsonSpan[], turn: () => Promise<void>): Promise<unknown> {
  const root = roots[0];
  if (roots.length > 1) throw new SyntaxError('more than one value');
  // No span: the value is short, the rest blank.
  if (root === undefined) return JSON.parse(text.between(0, text.length));
  if (!isBlank(text.between(0, root.start)) || !isBlank(text.between(root.end + 1, text.length)))
    throw new SyntaxError('text around the value');
  // A placeholder no body can hold by chance: NUL, then a random token.
  const token = `\u0000${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}:`;
  let since = performance.now();
  const pace = async () => {
    if (performance.now() - since < TURN_MS) return;
    await turn();
    since = performance.now();
  };

  async function build(span: JsonSpan): Promise<unknown> {
    if (span.kind === 'string') {
      const bounds = [span.start + 1, ...span.cuts, span.end];
      let value = '';
      for (let i = 0; i + 1 < bounds.length; i++) {
        const part = text.between(bounds[i] as number, bounds[i + 1] as number);
        value += span.plain ? part : (JSON.parse(`"${part}"`) as string);
        await pace();
      }
      return value;
    }
    const isArray = span.kind === 'array';
    const out: unknown[] | Record<string, unknown> = isArray ? [] : {};
    const bounds = [span.start, ...span.cuts, span.end];
    let child = 0;
    for (let i = 0; i + 1 < bounds.length; i++) {
      // The items between two cuts, the spans among them as placeholders.
      const from = (bounds[i] as number) + 1;
      const to = bounds[i + 1] as number;
      let partText = '';
      let at = from;
      const inside: JsonSpan[] = [];
      for (let next = span.children[child]; next !== undefined && next.start < to; next = span.children[++child]) {
        partText += `${text.between(at, next.start)}${JSON.stringify(token + inside.length)}`;
        inside.push(next);
        at = next.end + 1;
      }
      partText += text.between(at, to);
      if (bounds.length > 2 && isBlank(partText)) throw new SyntaxError('an empty item');
      const part = JSON.parse(isArray ? `[${partText}]` : `{${partText}}`) as unknown[] | Record<string, unknown>;
      await pace();
      const fill = async (value: unknown) =>
        typeof value === 'string' && value.startsWith(token) ? build(inside[Number(value.slice(token.length))] as JsonSpan) : value;
      if (Array.isArray(part)) for (const item of part) (out as unknown[]).push(await fill(item));
      else for (const key of Object.keys(part)) define(out as Record<string, unknown>, key, await fill(part[key]));
    }
    return out;
  }
  return build(root);
}

/** A long text kept as the pieces it was decoded in. */
export interface PiecedText {
  readonly length: number;
  between(from: number, to: number): string;
}

export function piecedText(pieces: readonly string[]): PiecedText {
  const starts: number[] = [];
  let length = 0;
  for (const piece of pieces) {
    starts.push(length);
    length += piece.length;
  }
  const pieceAt = (offset: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  return {
    length,
    between(from, to) {
      if (to <= from) return '';
      let out = '';
      for (let p = pieceAt(from); p < pieces.length && (starts[p] as number) < to; p++) {
        const start = starts[p] as number;
        out += (pieces[p] as string).slice(Math.max(0, from - start), to - start);
      }
      return out;
    },
  };
}

/** How long a stretch of parsing runs before the event loop gets a turn. */
const TURN_MS = 8;

const isBlank = (text: string) => /^[ \t\n\r]*$/.test(text);

/** An own property, as JSON.parse makes it: `__proto__` too, not the prototype. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}
