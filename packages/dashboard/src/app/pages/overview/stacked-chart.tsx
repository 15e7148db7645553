import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { ChartFrame } from './chart-frame.js';

/** One stacked series: its name, its colour and a count per bucket. */
export interface ChartSeries {
  label: string;
  colour: string;
  values: number[];
}

const HEIGHT = 180;
// Whole numbers only on the count axis.
const COUNT_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6];

/** The first draw of each chart is marked for the overview's first-paint bench (bench/README.md, "dashboard"). */
const CHART_DRAWN_MARK = 'agentrun:chart-drawn';

/**
 * Counts per time bucket as stacked bars (uPlot, on a canvas), with a legend of totals and the
 * table of counts (ChartFrame). Bars are drawn as running sums, the top series first, so each
 * series shows as its own band. New numbers go in with `setData`: the chart is built once and
 * updated in place, without a blink.
 */
export function StackedChart({
  id,
  title,
  buckets,
  stepSeconds,
  series,
}: {
  id: string;
  title: string;
  /** Each bucket's start, RFC 3339. */
  buckets: string[];
  stepSeconds: number;
  /** Bottom to top. */
  series: ChartSeries[];
}) {
  const frame = useRef<HTMLElement>(null);
  const canvas = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const xs = buckets.map((b) => Date.parse(b) / 1000);
  const span = useRef<[number, number]>([0, 1]);
  span.current = [xs[0] ?? 0, (xs[xs.length - 1] ?? 0) + stepSeconds];
  const data = stackedData(xs, series);
  const shape = series.map((s) => `${s.label}:${s.colour}`).join('|');

  useEffect(() => {
    const box = canvas.current;
    if (!box) return;
    let drawn = false;
    const chart = new uPlot(
      {
        width: Math.max(box.clientWidth, 200),
        height: HEIGHT,
        legend: { show: false },
        cursor: { show: false },
        select: { show: false, left: 0, top: 0, width: 0, height: 0 },
        scales: {
          x: { time: true, range: () => span.current },
          y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
        },
        axes: [
          { stroke: '#4b5563', grid: { stroke: '#eaeef2', width: 1 }, ticks: { show: false } },
          { stroke: '#4b5563', grid: { stroke: '#eaeef2', width: 1 }, ticks: { show: false }, incrs: COUNT_STEPS, size: 44 },
        ],
        series: [
          {},
          ...[...series].reverse().map((s) => ({
            label: s.label,
            stroke: s.colour,
            fill: s.colour,
            width: 0,
            points: { show: false },
            paths: uPlot.paths.bars?.({ size: [0.85, Number.POSITIVE_INFINITY], align: 1 }),
          })),
        ],
        hooks: {
          draw: [
            () => {
              if (drawn) return;
              drawn = true;
              frame.current?.setAttribute('data-drawn', 'true');
              performance.mark(CHART_DRAWN_MARK, { detail: id });
            },
          ],
        },
      },
      data,
      box,
    );
    plot.current = chart;
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(box.clientWidth, 200), height: HEIGHT }));
    resize.observe(box);
    return () => {
      resize.disconnect();
      chart.destroy();
      plot.current = undefined;
    };
  }, [shape]);

  useEffect(() => {
    plot.current?.setData(data);
  });

  const rows = buckets.flatMap((b, i) => {
    const counts = series.map((s) => s.values[i] ?? 0);
    return counts.some((c) => c > 0) ? [[bucketLabel(b, stepSeconds), ...counts]] : [];
  });
  const totals = series.map((s) => s.values.reduce((a, b) => a + b, 0));
  return (
    <ChartFrame
      id={id}
      title={title}
      head={['Bucket', ...series.map((s) => s.label)]}
      rows={rows}
      foot={['Total', ...totals]}
      frameRef={frame}
    >
      <ul class="legend">
        {series.map((s, i) => (
          <li key={s.label}>
            <span class="swatch" style={{ background: s.colour }} />
            {s.label} <strong>{totals[i]}</strong>
          </li>
        ))}
      </ul>
      <div class="chart-canvas" ref={canvas} />
    </ChartFrame>
  );
}

/** uPlot's data: the x values, then the running sums from the top series down (drawn in that order). */
function stackedData(xs: number[], series: ChartSeries[]): uPlot.AlignedData {
  const sums: number[][] = [];
  let below = xs.map(() => 0);
  for (const s of series) {
    below = below.map((v, i) => v + (s.values[i] ?? 0));
    sums.push(below);
  }
  return [xs, ...sums.reverse()];
}

/** A bucket's start as people read it: with its date past the 1-hour range. */
const bucketLabel = (iso: string, stepSeconds: number): string => {
  const at = new Date(iso);
  return stepSeconds >= 900
    ? at.toLocaleString([], { dateStyle: 'short', timeStyle: 'short' })
    : at.toLocaleTimeString([], { timeStyle: 'short' });
};
