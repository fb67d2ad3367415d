import { PNG } from 'pngjs';
import type { ManagedStatsSeries } from '../api/operations/managed.js';
import { GLYPH_HEIGHT, GLYPH_WIDTH, glyphPixels, textWidth } from './bitmap-font.js';
import { wallClockAt } from './schedule.js';
import { formatValue, pointTimeMs, type SeriesStyle, STATS_SERIES, sortedPoints } from './stats-series.js';

/**
 * The stats picture: the last 24 hours of `GET /managed/stats` as line charts in a PNG. Usage
 * (cpu, disk, swap) and network (in, out) get a panel each, with their own scale, gridlines and
 * labels; the time axis is labelled every few hours in the subscription's zone. Lines are drawn
 * without anti-aliasing, so every pixel of a line has its series' exact colour, and the same input
 * always gives the same bytes.
 */

export interface ChartOptions {
  readonly width?: number;
  readonly height?: number;
  /** Zone of the time labels. */
  readonly zone?: string;
}

export const DEFAULT_CHART_SIZE = { width: 800, height: 400 } as const;

type Rgb = readonly [number, number, number];

const BACKGROUND: Rgb = [255, 255, 255];
const GRID: Rgb = [226, 226, 226];
const AXIS: Rgb = [90, 90, 90];
const LABEL: Rgb = [60, 60, 60];

const MARGIN = { left: 52, right: 14, top: 22, bottom: 20 } as const;
const PANEL_GAP = 18;
const HOUR_MS = 3_600_000;

/** An RGBA pixel buffer with the few drawing operations the chart needs. */
class Canvas {
  readonly png: PNG;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.png = new PNG({ width, height, colorType: 6 });
    this.fillRect(0, 0, width, height, BACKGROUND);
  }

  pixel(x: number, y: number, [r, g, b]: Rgb): void {
    const px = Math.round(x);
    const py = Math.round(y);
    if (px < 0 || py < 0 || px >= this.width || py >= this.height) return;
    const i = (py * this.width + px) * 4;
    this.png.data[i] = r;
    this.png.data[i + 1] = g;
    this.png.data[i + 2] = b;
    this.png.data[i + 3] = 255;
  }

  fillRect(x: number, y: number, w: number, h: number, color: Rgb): void {
    for (let dy = 0; dy < h; dy++) for (let dx = 0; dx < w; dx++) this.pixel(x + dx, y + dy, color);
  }

  /** Bresenham, `thickness` pixels wide (a square brush). */
  line(x0: number, y0: number, x1: number, y1: number, color: Rgb, thickness = 1): void {
    let x = Math.round(x0);
    let y = Math.round(y0);
    const xEnd = Math.round(x1);
    const yEnd = Math.round(y1);
    const dx = Math.abs(xEnd - x);
    const dy = -Math.abs(yEnd - y);
    const sx = x < xEnd ? 1 : -1;
    const sy = y < yEnd ? 1 : -1;
    let error = dx + dy;
    for (;;) {
      this.fillRect(x, y, thickness, thickness, color);
      if (x === xEnd && y === yEnd) return;
      const doubled = 2 * error;
      if (doubled >= dy) {
        error += dy;
        x += sx;
      }
      if (doubled <= dx) {
        error += dx;
        y += sy;
      }
    }
  }

  text(x: number, y: number, text: string, color: Rgb): void {
    [...text].forEach((char, index) => {
      for (const [gx, gy] of glyphPixels(char)) this.pixel(x + index * (GLYPH_WIDTH + 1) + gx, y + gy, color);
    });
  }
}

interface Panel {
  readonly series: readonly SeriesStyle[];
  readonly top: number;
  readonly height: number;
}

/** A round step that cuts `range` into about `count` pieces: 1, 2, 2.5 or 5 times a power of ten. */
export function niceStep(range: number, count: number): number {
  if (!(range > 0)) return 1;
  const raw = range / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const multiple = [1, 2, 2.5, 5, 10].find((m) => m * power >= raw) ?? 10;
  return multiple * power;
}

export function renderStatsChart(series: ManagedStatsSeries, options: ChartOptions = {}): Buffer {
  const width = options.width ?? DEFAULT_CHART_SIZE.width;
  const height = options.height ?? DEFAULT_CHART_SIZE.height;
  const canvas = new Canvas(width, height);
  const plotLeft = MARGIN.left;
  const plotRight = width - MARGIN.right;
  const panelHeight = Math.floor((height - MARGIN.top - MARGIN.bottom - PANEL_GAP) / 2);
  const panels: Panel[] = [
    { series: STATS_SERIES.filter((s) => s.panel === 'usage'), top: MARGIN.top, height: panelHeight },
    {
      series: STATS_SERIES.filter((s) => s.panel === 'network'),
      top: MARGIN.top + panelHeight + PANEL_GAP,
      height: panelHeight,
    },
  ];

  const points = Object.fromEntries(STATS_SERIES.map((s) => [s.key, sortedPoints(series[s.key])]));
  const times = Object.values(points).flatMap((list) => list.map((p) => pointTimeMs(p.x)));
  const end = times.length > 0 ? Math.max(...times) : 0;
  const start = times.length > 0 ? Math.min(...times, end - 24 * HOUR_MS) : end - 24 * HOUR_MS;
  const span = Math.max(1, end - start);
  const xOf = (ms: number) => plotLeft + ((ms - start) / span) * (plotRight - plotLeft);

  drawLegend(canvas, plotLeft);
  const hourTicks = timeTicks(start, end, options.zone ?? 'UTC');

  for (const panel of panels) {
    const values = panel.series.flatMap((s) => (points[s.key] ?? []).map((p) => p.y));
    const low = Math.min(0, ...values);
    const high = Math.max(0, ...values);
    const step = niceStep(high - low || 1, 4);
    const axisLow = Math.floor(low / step) * step;
    const axisHigh = Math.max(axisLow + step, Math.ceil(high / step) * step);
    const bottom = panel.top + panel.height;
    const yOf = (value: number) => bottom - ((value - axisLow) / (axisHigh - axisLow)) * panel.height;

    for (let value = axisLow; value <= axisHigh + step / 2; value += step) {
      const y = Math.round(yOf(value));
      canvas.line(plotLeft, y, plotRight, y, GRID);
      const label = formatValue(Number(value.toPrecision(12)));
      canvas.text(plotLeft - 6 - textWidth(label), y - Math.floor(GLYPH_HEIGHT / 2), label, LABEL);
    }
    for (const tick of hourTicks) {
      const x = Math.round(xOf(tick.ms));
      canvas.line(x, panel.top, x, bottom, GRID);
    }
    for (const style of panel.series) {
      const list = points[style.key] ?? [];
      const color = style.rgb;
      if (list.length === 1 && list[0]) {
        canvas.fillRect(xOf(pointTimeMs(list[0].x)) - 1, yOf(list[0].y) - 1, 3, 3, color);
      }
      for (let i = 1; i < list.length; i++) {
        const from = list[i - 1];
        const to = list[i];
        if (!from || !to) continue;
        canvas.line(xOf(pointTimeMs(from.x)), yOf(from.y), xOf(pointTimeMs(to.x)), yOf(to.y), color, 2);
      }
    }
    canvas.line(plotLeft, panel.top, plotLeft, bottom, AXIS);
    canvas.line(plotLeft, bottom, plotRight, bottom, AXIS);
  }

  const axisBottom = (panels[1]?.top ?? 0) + panelHeight;
  for (const tick of hourTicks) {
    const x = Math.round(xOf(tick.ms));
    canvas.line(x, axisBottom, x, axisBottom + 3, AXIS);
    canvas.text(x - Math.floor(textWidth(tick.label) / 2), axisBottom + 6, tick.label, LABEL);
  }
  return PNG.sync.write(canvas.png);
}

function drawLegend(canvas: Canvas, left: number): void {
  let x = left;
  const y = 7;
  for (const style of STATS_SERIES) {
    canvas.fillRect(x, y + 2, 14, 3, style.rgb);
    canvas.text(x + 18, y, style.label, LABEL);
    x += 18 + textWidth(style.label) + 16;
  }
}

/** Whole hours, every 3 hours of the zone's clock, between `start` and `end`. */
function timeTicks(start: number, end: number, zone: string): { ms: number; label: string }[] {
  const ticks: { ms: number; label: string }[] = [];
  // Zones are offset from UTC by whole quarter hours, so stepping by 15 minutes meets every local hour.
  const quarter = 15 * 60_000;
  for (let ms = Math.ceil(start / quarter) * quarter; ms <= end; ms += quarter) {
    const wall = wallClockAt(new Date(ms), zone);
    if (wall.minute === 0 && wall.hour % 3 === 0) {
      ticks.push({ ms, label: `${String(wall.hour).padStart(2, '0')}:00` });
    }
  }
  return ticks;
}
