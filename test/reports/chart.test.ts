import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import type { ManagedStatsSeries } from '../../lib/api/operations/managed.js';
import { niceStep, renderStatsChart } from '../../lib/reports/chart.js';
import { STATS_SERIES } from '../../lib/reports/stats-series.js';

const END = Date.parse('2030-01-15T09:00:00Z');
const STEP = 5 * 60_000;

/** 24 hours of five-minute points, each series its own shape. */
function series(shift = 0): ManagedStatsSeries {
  const xs = Array.from({ length: 288 }, (_, i) => END - (287 - i) * STEP);
  const wave = (base: number, swing: number, phase: number) =>
    xs.map((x, i) => ({ x, y: base + shift + Math.round(Math.sin(i / 30 + phase) * swing) }));
  return {
    cpu: wave(40, 20, 0),
    disk: wave(120, 50, 1),
    swap: wave(5, 3, 2),
    net_in: wave(800, 300, 3),
    net_out: wave(1500, 600, 4),
  };
}

function pixelsOf(
  png: PNG,
  [r, g, b]: readonly [number, number, number],
  region?: { top: number; bottom: number },
) {
  const found: { x: number; y: number }[] = [];
  for (let y = region?.top ?? 0; y < (region?.bottom ?? png.height); y++) {
    for (let x = 0; x < png.width; x++) {
      const i = (y * png.width + x) * 4;
      if (png.data[i] === r && png.data[i + 1] === g && png.data[i + 2] === b && png.data[i + 3] === 255) {
        found.push({ x, y });
      }
    }
  }
  return found;
}

describe('renderStatsChart', () => {
  it('is a valid 800×400 PNG', () => {
    const bytes = renderStatsChart(series());
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const png = PNG.sync.read(bytes);
    expect([png.width, png.height]).toEqual([800, 400]);
  });

  it('draws every series in its own colour inside the plot area, not only in the legend', () => {
    const png = PNG.sync.read(renderStatsChart(series()));
    // The legend is the top 20 rows; the plots are below.
    for (const style of STATS_SERIES) {
      const inPlot = pixelsOf(png, style.rgb, { top: 22, bottom: png.height });
      expect(inPlot.length, style.label).toBeGreaterThan(300);
      expect(
        pixelsOf(png, style.rgb, { top: 0, bottom: 20 }).length,
        `${style.label} legend`,
      ).toBeGreaterThan(0);
    }
  });

  it('puts usage series in the upper panel and network series in the lower one', () => {
    const png = PNG.sync.read(renderStatsChart(series()));
    const middle = png.height / 2;
    for (const style of STATS_SERIES) {
      const ys = pixelsOf(png, style.rgb, { top: 22, bottom: png.height }).map((p) => p.y);
      if (style.panel === 'usage') expect(Math.max(...ys), style.label).toBeLessThan(middle);
      else expect(Math.min(...ys), style.label).toBeGreaterThan(middle);
    }
  });

  it('plots values where they are: a series that jumps from low to high rises from left to right', () => {
    const flat = series();
    const half = flat.cpu.length / 2;
    const stepped = { ...flat, cpu: flat.cpu.map((p, i) => ({ x: p.x, y: i < half ? 0 : 100 })) };
    const png = PNG.sync.read(renderStatsChart(stepped));
    const blue = STATS_SERIES.find((s) => s.key === 'cpu')?.rgb ?? [0, 0, 0];
    const points = pixelsOf(png, blue, { top: 22, bottom: png.height });
    const left = points.filter((p) => p.x < 300).map((p) => p.y);
    const right = points.filter((p) => p.x > 500).map((p) => p.y);
    // Smaller y is higher up in the picture.
    expect(Math.max(...right)).toBeLessThan(Math.min(...left));
  });

  it('gives the same bytes for the same input, and different bytes for different input', () => {
    expect(renderStatsChart(series()).equals(renderStatsChart(series()))).toBe(true);
    expect(renderStatsChart(series()).equals(renderStatsChart(series(10)))).toBe(false);
  });

  it('labels the time axis in the zone it is given', () => {
    const utc = renderStatsChart(series(), { zone: 'UTC' });
    const kolkata = renderStatsChart(series(), { zone: 'Asia/Kolkata' });
    expect(utc.equals(kolkata)).toBe(false);
  });

  it('copes with empty and single-point series and honours the size it is asked for', () => {
    const sparse: ManagedStatsSeries = {
      cpu: [{ x: END, y: 3 }],
      disk: [],
      swap: [],
      net_in: [],
      net_out: [],
    };
    const png = PNG.sync.read(renderStatsChart(sparse, { width: 400, height: 200 }));
    expect([png.width, png.height]).toEqual([400, 200]);
    const blue = STATS_SERIES[0]?.rgb ?? [0, 0, 0];
    expect(pixelsOf(png, blue, { top: 22, bottom: 200 }).length).toBeGreaterThan(0);
  });
});

describe('niceStep', () => {
  it.each([
    [100, 4, 25],
    [1800, 4, 500],
    [7, 4, 2],
    [0, 4, 1],
  ])('cuts %d into about %d round steps of %d', (range, count, step) => {
    expect(niceStep(range, count)).toBe(step);
  });
});
