import type { ManagedStatsPoint, ManagedStatsSeries } from '../api/operations/managed.js';

/**
 * The five series of `GET /managed/stats`, described once: the chart draws them in these colours
 * and panels, and the text summary names the same colours, so a reader can match line and number.
 *
 * The documents give no unit for any series (nor for `x`), so none is guessed: the chart's panels
 * say "as reported", and `unit` is where one goes once the API states it.
 */

export type SeriesKey = keyof ManagedStatsSeries;

export interface SeriesStyle {
  readonly key: SeriesKey;
  /** As the summary and the legend write it. */
  readonly label: string;
  readonly colorName: string;
  /** `#rrggbb`, as the chart's SVG writes it. */
  readonly hex: string;
  readonly unit?: string;
}

export const STATS_SERIES = [
  { key: 'cpu', label: 'cpu', colorName: 'blue', hex: '#1f77b4' },
  { key: 'disk', label: 'disk', colorName: 'orange', hex: '#ff7f0e' },
  { key: 'swap', label: 'swap', colorName: 'purple', hex: '#9467bd' },
  { key: 'net_in', label: 'net in', colorName: 'green', hex: '#2ca02c' },
  { key: 'net_out', label: 'net out', colorName: 'red', hex: '#d62728' },
] as const satisfies readonly SeriesStyle[];

const style = (key: SeriesKey): SeriesStyle => STATS_SERIES.find((s) => s.key === key) as SeriesStyle;

export interface ChartPanel {
  readonly title: string;
  readonly series: readonly SeriesStyle[];
  /** Shared by the panel's series when the API states one. */
  readonly unit?: string;
}

/**
 * One panel per quantity, each with its own axis: cpu on the disk's scale would be squashed flat,
 * and network counts are orders of magnitude above both.
 */
export const CHART_PANELS: readonly ChartPanel[] = [
  { title: 'CPU', series: [style('cpu')] },
  { title: 'Disk and swap', series: [style('disk'), style('swap')] },
  { title: 'Network in / out', series: [style('net_in'), style('net_out')] },
];

export interface SeriesSummary {
  readonly style: SeriesStyle;
  readonly points: number;
  /** Undefined when the series has no points. */
  readonly latest?: number;
  readonly min?: number;
  readonly average?: number;
  readonly max?: number;
}

/** Points in time order: the API does not promise an order, and "latest" depends on it. */
export function sortedPoints(points: readonly ManagedStatsPoint[]): ManagedStatsPoint[] {
  return points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y)).sort((a, b) => a.x - b.x);
}

export function summarizeSeries(series: ManagedStatsSeries): SeriesSummary[] {
  return STATS_SERIES.map((style: SeriesStyle) => {
    const points = sortedPoints(series[style.key]);
    const last = points.at(-1);
    if (!last) return { style, points: 0 };
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    let sum = 0;
    for (const { y } of points) {
      min = Math.min(min, y);
      max = Math.max(max, y);
      sum += y;
    }
    return { style, points: points.length, latest: last.y, min, average: sum / points.length, max };
  });
}

/**
 * `x` is a timestamp whose unit the documents leave open (the published example is
 * millisecond-like). Values this large can only be milliseconds; smaller ones are read as seconds.
 */
export function pointTimeMs(x: number): number {
  return Math.abs(x) >= 1e11 ? x : x * 1000;
}

/** 1234567 → `1.2M`, 15300 → `15.3k`, 1500 → `1500`, 29.94 → `29.9`. */
export function formatValue(value: number): string {
  const abs = Math.abs(value);
  const compact = (n: number, suffix: string) => `${trimZeros(n.toFixed(n >= 100 ? 0 : 1))}${suffix}`;
  if (abs >= 1e9) return compact(value / 1e9, 'G');
  if (abs >= 1e6) return compact(value / 1e6, 'M');
  if (abs >= 1e4) return compact(value / 1e3, 'k');
  if (Number.isInteger(value)) return String(value);
  return trimZeros(value.toFixed(abs >= 100 ? 0 : 1));
}

function trimZeros(text: string): string {
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}
