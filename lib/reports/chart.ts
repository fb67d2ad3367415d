import type { ManagedStatsSeries } from '../api/operations/managed.js';
import { wallClockAt, zoneOffsetMs } from './schedule.js';
import {
  CHART_PANELS,
  type ChartPanel,
  formatValue,
  pointTimeMs,
  type SeriesStyle,
  sortedPoints,
  summarizeSeries,
} from './stats-series.js';

/**
 * The stats picture: the last 24 hours of `GET /managed/stats`, one panel per quantity (cpu; disk
 * and swap; network in and out), each with its own axis, drawn as SVG and rasterised by resvg at
 * twice its size so Slack's preview stays sharp on high-density screens.
 *
 * The SVG is built as plain text so tests can read it (title, zone, labels, one path per series)
 * and so the same series always give the same picture. Gridlines and axes come first in the
 * document, the series last: a series lying on zero is drawn over the axis, not hidden by it.
 */

export interface ChartOptions {
  /** Zone of the title's window and the time labels. */
  readonly zone?: string;
}

/** Size of the SVG in CSS pixels; the PNG is `CHART_SCALE` times this. */
export const CHART_SIZE = { width: 800, height: 620 } as const;
export const CHART_SCALE = 2;

const HOUR_MS = 3_600_000;
const MARGIN = { left: 64, right: 24, top: 64, bottom: 34 } as const;
const PANEL_GAP = 44;
/** Room above each panel's plot for its title and legend. */
const PANEL_HEADER = 20;

const COLORS = {
  text: '#1d1c1d',
  muted: '#616061',
  grid: '#e8e8e8',
  axis: '#8d8d8d',
} as const;

/** A round step that cuts `range` into about `count` pieces: 1, 2, 2.5 or 5 times a power of ten. */
export function niceStep(range: number, count: number): number {
  if (!(range > 0)) return 1;
  const raw = range / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const multiple = [1, 2, 2.5, 5, 10].find((m) => m * power >= raw) ?? 10;
  return multiple * power;
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Fixed decimals keep the SVG stable and small; a tenth of a CSS pixel is a fifth of a device pixel. */
function n(value: number): string {
  return String(Math.round(value * 10) / 10);
}

function text(
  x: number,
  y: number,
  content: string,
  attributes: {
    size: number;
    anchor?: 'start' | 'middle' | 'end';
    weight?: 'bold';
    fill?: string;
    cls?: string;
  },
): string {
  const anchor =
    attributes.anchor && attributes.anchor !== 'start' ? ` text-anchor="${attributes.anchor}"` : '';
  const weight = attributes.weight ? ` font-weight="${attributes.weight}"` : '';
  const cls = attributes.cls ? ` class="${attributes.cls}"` : '';
  return `<text x="${n(x)}" y="${n(y)}" font-size="${attributes.size}"${anchor}${weight} fill="${attributes.fill ?? COLORS.text}"${cls}>${escapeXml(content)}</text>`;
}

/** `+05:30`, `-03:00`, `+00:00` at `instant`. */
function offsetLabel(instant: Date, zone: string): string {
  const minutes = Math.round(zoneOffsetMs(instant, zone) / 60_000);
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `15 Jan 09:00` on the zone's clock. */
function wallText(ms: number, zone: string): string {
  const wall = wallClockAt(new Date(ms), zone);
  const time = `${String(wall.hour).padStart(2, '0')}:${String(wall.minute).padStart(2, '0')}`;
  return `${wall.day} ${MONTHS[wall.month - 1] ?? ''} ${time}`;
}

/** The chart's window as its subtitle says it: `14 Jan 09:00 – 15 Jan 09:00 (Asia/Kolkata, UTC+05:30)`. */
export function windowText(startMs: number, endMs: number, zone: string): string {
  return `${wallText(startMs, zone)} – ${wallText(endMs, zone)} (${zone}, UTC${offsetLabel(new Date(endMs), zone)})`;
}

/** Whole hours of the zone's clock, every `everyHours`, between `start` and `end`. */
function timeTicks(
  start: number,
  end: number,
  zone: string,
  everyHours: number,
): { ms: number; label: string }[] {
  const ticks: { ms: number; label: string }[] = [];
  // Zones are offset from UTC by whole quarter hours, so stepping by 15 minutes meets every local hour.
  const quarter = 15 * 60_000;
  for (let ms = Math.ceil(start / quarter) * quarter; ms <= end; ms += quarter) {
    const wall = wallClockAt(new Date(ms), zone);
    if (wall.minute === 0 && wall.hour % everyHours === 0) {
      ticks.push({ ms, label: `${String(wall.hour).padStart(2, '0')}:00` });
    }
  }
  return ticks;
}

interface Window {
  readonly start: number;
  readonly end: number;
}

/** The last 24 hours up to the newest point (longer if the API sent older points). */
function windowOf(series: ManagedStatsSeries): Window {
  const times = CHART_PANELS.flatMap((panel) => panel.series).flatMap((style) =>
    sortedPoints(series[style.key]).map((p) => pointTimeMs(p.x)),
  );
  if (times.length === 0) return { start: -24 * HOUR_MS, end: 0 };
  const end = Math.max(...times);
  return { start: Math.min(...times, end - 24 * HOUR_MS), end };
}

/** The SVG document of the chart. */
export function statsChartSvg(series: ManagedStatsSeries, options: ChartOptions = {}): string {
  const zone = options.zone ?? 'UTC';
  const { width, height } = CHART_SIZE;
  const window = windowOf(series);
  const span = Math.max(1, window.end - window.start);
  const plotLeft = MARGIN.left;
  const plotRight = width - MARGIN.right;
  const xOf = (ms: number) => plotLeft + ((ms - window.start) / span) * (plotRight - plotLeft);
  const panelCount = CHART_PANELS.length;
  const panelHeight =
    (height - MARGIN.top - MARGIN.bottom - PANEL_GAP * (panelCount - 1) - PANEL_HEADER * panelCount) /
    panelCount;
  const ticks = timeTicks(window.start, window.end, zone, span > 30 * HOUR_MS ? 6 : 3);
  const latest = new Map(summarizeSeries(series).map((s) => [s.style.key, s.latest]));

  const grid: string[] = [];
  const axes: string[] = [];
  const labels: string[] = [];
  const lines: string[] = [];
  const legends: string[] = [];

  labels.push(
    text(plotLeft - 52, 26, 'Managed stats · last 24 hours · all managed nodes', {
      size: 18,
      weight: 'bold',
      cls: 'title',
    }),
    text(plotLeft - 52, 48, windowText(window.start, window.end, zone), {
      size: 13,
      fill: COLORS.muted,
      cls: 'window',
    }),
  );

  CHART_PANELS.forEach((panel, index) => {
    const top = MARGIN.top + index * (panelHeight + PANEL_GAP + PANEL_HEADER) + PANEL_HEADER;
    const bottom = top + panelHeight;
    const { yOf, values: tickValues } = panelScale(series, panel, top, bottom);

    labels.push(
      text(plotLeft, top - 8, `${panel.title} (${panel.unit ?? 'as reported'})`, {
        size: 13,
        weight: 'bold',
        cls: 'panel-title',
      }),
    );
    legends.push(legend(panel, latest, plotRight, top - 8));

    for (const value of tickValues) {
      const y = yOf(value);
      grid.push(`<line x1="${plotLeft}" y1="${n(y)}" x2="${plotRight}" y2="${n(y)}"/>`);
      labels.push(
        text(plotLeft - 8, y + 4, formatValue(Number(value.toPrecision(12))), {
          size: 11,
          anchor: 'end',
          fill: COLORS.muted,
          cls: 'y-label',
        }),
      );
    }
    for (const tick of ticks) {
      const x = xOf(tick.ms);
      grid.push(`<line x1="${n(x)}" y1="${n(top)}" x2="${n(x)}" y2="${n(bottom)}"/>`);
      if (index === panelCount - 1) {
        axes.push(`<line x1="${n(x)}" y1="${n(bottom)}" x2="${n(x)}" y2="${n(bottom + 4)}"/>`);
      }
      labels.push(
        text(x, bottom + 16, tick.label, { size: 11, anchor: 'middle', fill: COLORS.muted, cls: 'x-label' }),
      );
    }
    axes.push(
      `<line x1="${plotLeft}" y1="${n(top)}" x2="${plotLeft}" y2="${n(bottom)}"/>`,
      `<line x1="${plotLeft}" y1="${n(bottom)}" x2="${plotRight}" y2="${n(bottom)}"/>`,
    );
    for (const style of panel.series) lines.push(seriesPath(style, series, xOf, yOf));
  });

  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="DejaVu Sans, sans-serif">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<g class="grid" stroke="${COLORS.grid}" stroke-width="1">${grid.join('')}</g>`,
    `<g class="axes" stroke="${COLORS.axis}" stroke-width="1">${axes.join('')}</g>`,
    `<g class="labels">${labels.join('')}</g>`,
    `<g class="series" fill="none" stroke-width="2" stroke-linejoin="round" stroke-linecap="round">${lines.join('')}</g>`,
    `<g class="legend">${legends.join('')}</g>`,
    '</svg>',
  ].join('\n');
}

/** From zero (or the lowest value, if below) to a round step above the highest value. */
function panelScale(series: ManagedStatsSeries, panel: ChartPanel, top: number, bottom: number) {
  const values = panel.series.flatMap((s) => sortedPoints(series[s.key]).map((p) => p.y));
  const low = Math.min(0, ...values);
  const high = Math.max(0, ...values);
  const step = niceStep(high - low || 1, 4);
  const axisLow = Math.floor(low / step) * step;
  const axisHigh = Math.max(axisLow + step, Math.ceil(high / step) * step);
  const yOf = (value: number) => bottom - ((value - axisLow) / (axisHigh - axisLow)) * (bottom - top);
  const tickValues: number[] = [];
  for (let value = axisLow; value <= axisHigh + step / 2; value += step) tickValues.push(value);
  return { yOf, values: tickValues };
}

function seriesPath(
  style: SeriesStyle,
  series: ManagedStatsSeries,
  xOf: (ms: number) => number,
  yOf: (value: number) => number,
): string {
  const points = sortedPoints(series[style.key]);
  const attributes = `class="series-line" data-series="${style.key}" stroke="${style.hex}"`;
  const [only] = points;
  if (points.length === 1 && only) {
    // One point makes no line: a dot, so the series still shows.
    const x = n(xOf(pointTimeMs(only.x)));
    const y = n(yOf(only.y));
    return `<path ${attributes} d="M${x} ${y}h0" stroke-width="5"/>`;
  }
  const d = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${n(xOf(pointTimeMs(p.x)))} ${n(yOf(p.y))}`).join('');
  return `<path ${attributes} d="${d}"/>`;
}

/** Right-aligned at the panel's top: a swatch and `name latest`, last series rightmost. */
function legend(
  panel: ChartPanel,
  latest: ReadonlyMap<string, number | undefined>,
  right: number,
  baseline: number,
): string {
  const parts: string[] = [];
  let x = right;
  for (const style of [...panel.series].reverse()) {
    const value = latest.get(style.key);
    const label = `${style.label} ${value === undefined ? 'no data' : formatValue(value)}`;
    parts.push(text(x, baseline, label, { size: 12, anchor: 'end', cls: 'legend-entry' }));
    x -= approximateWidth(label, 12) + 6;
    parts.push(
      `<line x1="${n(x - 16)}" y1="${n(baseline - 4)}" x2="${n(x)}" y2="${n(baseline - 4)}" stroke="${style.hex}" stroke-width="3"/>`,
    );
    x -= 16 + 18;
  }
  return parts.join('');
}

/** DejaVu Sans averages a little under 0.6 em per character in digits and lower case. */
function approximateWidth(label: string, size: number): number {
  return label.length * size * 0.58;
}

/** The chart as a PNG at `CHART_SCALE` times `CHART_SIZE`. */
export async function renderStatsChart(
  series: ManagedStatsSeries,
  options: ChartOptions = {},
): Promise<Buffer> {
  // The rasteriser (wasm and font) loads on first use: nothing else in a bundle needs it.
  const { svgToPng } = await import('./raster.js');
  return svgToPng(statsChartSvg(series, options), CHART_SCALE);
}
