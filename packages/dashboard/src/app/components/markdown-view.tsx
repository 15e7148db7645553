import type { JSX } from 'preact';
import { type Block, type Inline, parseMarkdown } from '../markdown.js';

/**
 * Markdown drawn as Preact elements, never as HTML (markdown.ts): headings are put `offset` levels
 * down, so a plan's `#` sits under the page's own headings.
 */
export function MarkdownView({ source, offset = 2 }: { source: string; offset?: number }) {
  return <div class="markdown">{parseMarkdown(source).map((block, i) => renderBlock(block, i, offset))}</div>;
}

function renderBlock(block: Block, key: number, offset: number): JSX.Element {
  switch (block.kind) {
    case 'heading': {
      const Tag = `h${Math.min(6, block.level + offset)}` as 'h3';
      return <Tag key={key}>{inline(block.children)}</Tag>;
    }
    case 'paragraph':
      return <p key={key}>{inline(block.children)}</p>;
    case 'list': {
      const items = block.items.map((item, i) => <li key={i}>{inline(item)}</li>);
      return block.ordered ? (
        <ol key={key} start={block.start}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      );
    }
    case 'code':
      return (
        <pre key={key}>
          <code>{block.text}</code>
        </pre>
      );
    case 'quote':
      return <blockquote key={key}>{inline(block.children)}</blockquote>;
    case 'rule':
      return <hr key={key} />;
  }
}

function inline(spans: readonly Inline[]): (JSX.Element | string)[] {
  return spans.map((span, i) => {
    switch (span.kind) {
      case 'text':
        return span.text;
      case 'code':
        return <code key={i}>{span.text}</code>;
      case 'strong':
        return <strong key={i}>{inline(span.children)}</strong>;
      case 'em':
        return <em key={i}>{inline(span.children)}</em>;
      default:
        return (
          <a key={i} href={span.href} target="_blank" rel="noopener noreferrer">
            {inline(span.children)}
          </a>
        );
    }
  });
}
