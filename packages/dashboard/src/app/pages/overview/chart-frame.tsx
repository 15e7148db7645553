import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

/**
 * A chart's frame (docs/dashboard.md, "Overview"): its title, the picture (hidden from screen
 * readers) and a table of the very numbers it draws. The table is always in the accessibility
 * tree; "Show table" shows it on screen too.
 */
export function ChartFrame({
  id,
  title,
  head,
  rows,
  foot,
  children,
  frameRef,
}: {
  id: string;
  title: string;
  head: string[];
  rows: (string | number)[][];
  foot?: (string | number)[];
  children: ComponentChildren;
  frameRef?: preact.Ref<HTMLElement>;
}) {
  const [shown, setShown] = useState(false);
  return (
    <figure class="chart" aria-labelledby={`${id}-title`} ref={frameRef}>
      <div class="chart-head">
        <h3 id={`${id}-title`}>{title}</h3>
        <button type="button" class="link" aria-expanded={shown} aria-controls={`${id}-table`} onClick={() => setShown(!shown)}>
          {shown ? 'Hide table' : 'Show table'}
        </button>
      </div>
      <div aria-hidden="true">{children}</div>
      {/* Hidden by its box, not itself: a table is never narrower than its cells. */}
      <div id={`${id}-table`} class={shown ? 'chart-table' : 'visually-hidden'}>
        <table class="list">
          <caption class="visually-hidden">{title}</caption>
          <thead>
            <tr>
              {head.map((h) => (
                <th scope="col" key={h}>
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={String(row[0])}>{row.map((cell, i) => (i === 0 ? <th scope="row">{cell}</th> : <td>{cell}</td>))}</tr>
            ))}
          </tbody>
          {foot ? (
            <tfoot>
              <tr>{foot.map((cell, i) => (i === 0 ? <th scope="row">{cell}</th> : <td>{cell}</td>))}</tr>
            </tfoot>
          ) : null}
        </table>
      </div>
    </figure>
  );
}
