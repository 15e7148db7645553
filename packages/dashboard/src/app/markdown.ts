/**
 * The Markdown of an agent's plan, read into blocks and inline spans that the page draws as Preact
 * elements (components/markdown-view.tsx): a safe subset, so no HTML of the agent's reaches the DOM,
 * by construction rather than by sanitizing (docs/dashboard.md, "A run's page"). Raw HTML in the
 * text stays text; a link is kept only to http(s) or mailto.
 */

export type Inline =
  | { kind: 'text'; text: string }
  | { kind: 'code'; text: string }
  | { kind: 'strong' | 'em'; children: Inline[] }
  | { kind: 'link'; href: string; children: Inline[] };

export type Block =
  | { kind: 'heading'; level: 1 | 2 | 3 | 4 | 5 | 6; children: Inline[] }
  | { kind: 'paragraph'; children: Inline[] }
  | { kind: 'list'; ordered: boolean; start: number; items: Inline[][] }
  | { kind: 'code'; text: string }
  | { kind: 'quote'; children: Inline[] }
  | { kind: 'rule' };

const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const FENCE = /^ {0,3}(```|~~~)/;
const BULLET = /^\s*[-*+]\s+(?:\[[ xX]\]\s+)?(.*)$/;
const NUMBERED = /^\s*(\d{1,9})[.)]\s+(.*)$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}>\s?(.*)$/;

/** The blocks of `source`: headings, paragraphs, lists (one level), fenced code, quotes, rules. */
export function parseMarkdown(source: string): Block[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    if (line.trim() === '') {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const code: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] as string).trimStart().startsWith(fence[1] as string)) code.push(lines[i++] as string);
      i++;
      blocks.push({ kind: 'code', text: code.join('\n') });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ kind: 'heading', level: (heading[1] as string).length as 1, children: parseInline(heading[2] as string) });
      i++;
      continue;
    }
    if (RULE.test(line)) {
      blocks.push({ kind: 'rule' });
      i++;
      continue;
    }
    const list = BULLET.test(line) ? BULLET : NUMBERED.test(line) ? NUMBERED : undefined;
    if (list) {
      const ordered = list === NUMBERED;
      const items: string[] = [];
      let start = 1;
      while (i < lines.length) {
        const current = lines[i] as string;
        const item = list.exec(current);
        if (item) {
          if (ordered && items.length === 0) start = Number(item[1]);
          items.push((ordered ? item[2] : item[1]) as string);
        } else if (current.trim() !== '' && /^\s+/.test(current) && items.length > 0) {
          // A continuation line (or a nested item, drawn flat) belongs to the item before it.
          items[items.length - 1] += ` ${current.trim().replace(/^([-*+]|\d{1,9}[.)])\s+/, '')}`;
        } else break;
        i++;
      }
      blocks.push({ kind: 'list', ordered, start, items: items.map(parseInline) });
      continue;
    }
    if (QUOTE.test(line)) {
      const quoted: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i] as string)) quoted.push(QUOTE.exec(lines[i++] as string)?.[1] ?? '');
      blocks.push({ kind: 'quote', children: parseInline(quoted.join(' ')) });
      continue;
    }
    const paragraph: string[] = [];
    while (i < lines.length && startsParagraphLine(lines[i] as string)) paragraph.push((lines[i++] as string).trim());
    blocks.push({ kind: 'paragraph', children: parseInline(paragraph.join(' ')) });
  }
  return blocks;
}

/** Whether a line goes on the paragraph before it (anything but a blank line or another block's start). */
const startsParagraphLine = (line: string): boolean =>
  line.trim() !== '' && !FENCE.test(line) && !HEADING.test(line) && !RULE.test(line) && !BULLET.test(line) && !QUOTE.test(line);

/** A link kept: http(s) and mailto only (never `javascript:` or `data:`). */
export const safeHref = (href: string): string | undefined => (/^(https?:\/\/|mailto:)/i.test(href.trim()) ? href.trim() : undefined);

/** Code spans, **strong**, *em* / _em_ and [links](url); anything else, raw HTML too, is text. */
export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let plain = '';
  const flush = () => {
    if (plain) out.push({ kind: 'text', text: plain });
    plain = '';
  };
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    const code = /^(`+)([\s\S]*?[^`])\1(?!`)/.exec(rest);
    // `_` inside a word (snake_case) is text.
    const inWord = /\w/.test(text[i - 1] ?? '') && text[i] === '_';
    const strong = inWord ? null : /^(\*\*|__)(?=\S)([\s\S]*?\S)\1/.exec(rest);
    const em = inWord ? null : /^([*_])(?=\S)([\s\S]*?\S)\1(?!\w)/.exec(rest);
    const link = /^\[([^\]]*)\]\(([^)\s]*)\)/.exec(rest);
    if (code) {
      flush();
      out.push({ kind: 'code', text: (code[2] as string).trim() });
      i += code[0].length;
    } else if (strong) {
      flush();
      out.push({ kind: 'strong', children: parseInline(strong[2] as string) });
      i += strong[0].length;
    } else if (em) {
      flush();
      out.push({ kind: 'em', children: parseInline(em[2] as string) });
      i += em[0].length;
    } else if (link) {
      flush();
      const href = safeHref(link[2] as string);
      const children = parseInline(link[1] as string);
      out.push(...(href ? [{ kind: 'link' as const, href, children }] : children));
      i += link[0].length;
    } else {
      plain += text[i];
      i++;
    }
  }
  flush();
  return out;
}
