import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import type { ManagedStatsSeries } from '../../../lib/api/operations/managed.js';
import {
  CHART_SCALE,
  CHART_SIZE,
  niceStep,
  renderStatsChart,
  statsChartSvg,
} from '../../../lib/reports/chart.js';
import { CHART_PANELS, STATS_SERIES } from '../../../lib/reports/stats-series.js';

const END = Date.parse('2030-01-15T09:00:00Z');
const STEP = 5 * 60_000;

/** 24 hours of five-minute points, each series its own shape; swap stays at 0 as on a box without swap. */
function series(shift = 0): ManagedStatsSeries {
  const xs = Array.from({ length: 288 }, (_, i) => END - (287 - i) * STEP);
  const wave = (base: number, swing: number, phase: number) =>
    xs.map((x, i) => ({ x, y: base + shift + Math.round(Math.sin(i / 30 + phase) * swing) }));
  return {
    cpu: wave(40, 20, 0),
    disk: wave(120, 50, 1),
    swap: xs.map((x) => ({ x, y: 0 })),
    net_in: wave(800_000, 300_000, 3),
    net_out: wave(1_500_000, 600_000, 4),
  };
}

interface Element {
  readonly tag: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly text: string;
  /** The class of the `<g>` it sits in. */
  readonly group: string | undefined;
  /** Position in the document: later elements are painted over earlier ones. */
  readonly order: number;
}

/** The chart's SVG as a flat list of elements, in document (painting) order. */
function elementsOf(svg: string): Element[] {
  const found: Element[] = [];
  const groups: (string | undefined)[] = [];
  const tag = /<(\/?)([a-z]+)((?:\s+[a-zA-Z0-9-]+="[^"]*")*)\s*(\/?)>(?:([^<]*)<\/\2>)?/g;
  for (const match of svg.matchAll(tag)) {
    const [, closing, name = '', rawAttributes = '', selfClosing, content] = match;
    if (closing) {
      if (name === 'g') groups.pop();
      continue;
    }
    const attributes = Object.fromEntries(
      [...rawAttributes.matchAll(/([a-zA-Z0-9-]+)="([^"]*)"/g)].map(([, key = '', value = '']) => [
        key,
        value,
      ]),
    );
    if (name === 'g' && !selfClosing && content === undefined) {
      groups.push(attributes.class);
      continue;
    }
    found.push({
      tag: name,
      attributes,
      text: (content ?? '').replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))),
      group: groups.at(-1),
      order: found.length,
    });
  }
  return found;
}

const textsOf = (elements: Element[], cls: string) =>
  elements.filter((e) => e.tag === 'text' && e.attributes.class === cls).map((e) => e.text);

/** The y coordinates a path visits. */
function pathYs(element: Element): number[] {
  return [...(element.attributes.d ?? '').matchAll(/[ML]([\d.]+) ([\d.]+)/g)].map(([, , y]) => Number(y));
}

function seriesPaths(elements: Element[]) {
  return elements.filter((e) => e.tag === 'path' && e.attributes.class === 'series-line');
}

describe('statsChartSvg', () => {
  it('titles the chart with its window and the time zone, so a forwarded picture still says when', () => {
    const svg = elementsOf(statsChartSvg(series(), { zone: 'Asia/Kolkata' }));
    expect(textsOf(svg, 'title')).toEqual(['Managed stats · last 24 hours · all managed nodes']);
    // The 24 hours up to the newest point (09:00 UTC), on Kolkata's clock (five and a half hours ahead).
    expect(textsOf(svg, 'window')).toEqual(['14 Jan 14:30 – 15 Jan 14:30 (Asia/Kolkata, UTC+05:30)']);
  });

  it('labels the time axis every three hours of the zone it is given', () => {
    const utc = textsOf(elementsOf(statsChartSvg(series(), { zone: 'UTC' })), 'x-label');
    const kolkata = textsOf(elementsOf(statsChartSvg(series(), { zone: 'Asia/Kolkata' })), 'x-label');
    const panels = CHART_PANELS.length;
    expect(utc.slice(0, utc.length / panels)).toEqual([
      '09:00',
      '12:00',
      '15:00',
      '18:00',
      '21:00',
      '00:00',
      '03:00',
      '06:00',
      '09:00',
    ]);
    expect(kolkata.slice(0, kolkata.length / panels)).toEqual([
      '15:00',
      '18:00',
      '21:00',
      '00:00',
      '03:00',
      '06:00',
      '09:00',
      '12:00',
    ]);
  });

  it('gives cpu, disk and swap, and network a panel each with its own axis, so cpu is not squashed flat', () => {
    const svg = elementsOf(statsChartSvg(series()));
    expect(textsOf(svg, 'panel-title')).toEqual([
      'CPU (as reported)',
      'Disk and swap (as reported)',
      'Network in / out (as reported)',
    ]);
    // cpu swings 20..60, disk 70..170, network up to 2.1M: each axis is cut to its own values.
    expect(textsOf(svg, 'y-label')).toEqual([
      '0',
      '20',
      '40',
      '60',
      '0',
      '50',
      '100',
      '150',
      '200',
      '0',
      '1M',
      '2M',
      '3M',
    ]);
  });

  it('draws one path per series, in its colour, in its own panel', () => {
    const svg = elementsOf(statsChartSvg(series()));
    const paths = seriesPaths(svg);
    expect(paths.map((p) => p.attributes['data-series'])).toEqual(STATS_SERIES.map((s) => s.key));
    expect(paths.map((p) => p.attributes.stroke)).toEqual(STATS_SERIES.map((s) => s.hex));
    for (const path of paths) expect(pathYs(path), path.attributes['data-series']).toHaveLength(288);

    const [cpu, disk, swap, netIn, netOut] = paths.map(pathYs);
    const below = (upper: number[] | undefined, lower: number[] | undefined) =>
      Math.max(...(upper ?? [])) < Math.min(...(lower ?? []));
    expect(below(cpu, disk)).toBe(true);
    expect(below(swap, netIn)).toBe(true);
    expect(below(disk, netOut)).toBe(true);
  });

  it('draws the axes before the series, so a series at zero lies on top of its axis instead of under it', () => {
    const svg = elementsOf(statsChartSvg(series()));
    const axes = svg.filter((e) => e.group === 'axes');
    const grid = svg.filter((e) => e.group === 'grid');
    const paths = seriesPaths(svg);
    expect(axes.length).toBeGreaterThan(0);
    const firstSeries = Math.min(...paths.map((p) => p.order));
    expect(Math.max(...axes.map((a) => a.order), ...grid.map((g) => g.order))).toBeLessThan(firstSeries);

    // swap is 0 throughout: its line runs along the disk panel's x-axis, painted after it.
    const swap = paths.find((p) => p.attributes['data-series'] === 'swap');
    if (!swap) throw new Error('no swap path');
    const swapYs = new Set(pathYs(swap));
    expect(swapYs.size).toBe(1);
    const xAxes = axes.filter((a) => a.attributes.y1 === a.attributes.y2).map((a) => Number(a.attributes.y1));
    expect(xAxes).toContain([...swapYs][0]);
  });

  it('shows each series with its latest value in the legend', () => {
    const data = series();
    const svg = elementsOf(statsChartSvg(data));
    const latest = (key: keyof ManagedStatsSeries) => data[key].at(-1)?.y;
    expect(textsOf(svg, 'legend-entry').sort()).toEqual(
      [
        `cpu ${latest('cpu')}`,
        `disk ${latest('disk')}`,
        'swap 0',
        `net in ${Math.round((latest('net_in') ?? 0) / 1000)}k`,
        `net out ${((latest('net_out') ?? 0) / 1e6).toFixed(1).replace(/\.0$/, '')}M`,
      ].sort(),
    );
  });

  it('copes with empty and single-point series: a dot for one point, "no data" for none', () => {
    const sparse: ManagedStatsSeries = {
      cpu: [{ x: END, y: 3 }],
      disk: [],
      swap: [],
      net_in: [],
      net_out: [],
    };
    const source = statsChartSvg(sparse);
    expect(source).not.toContain('NaN');
    const svg = elementsOf(source);
    const cpu = seriesPaths(svg).find((p) => p.attributes['data-series'] === 'cpu');
    expect(cpu?.attributes.d).toMatch(/^M[\d.]+ [\d.]+h0$/);
    expect(textsOf(svg, 'legend-entry')).toContain('disk no data');
  });

  it('escapes what it writes as text', () => {
    expect(statsChartSvg(series(), { zone: 'Etc/GMT+5' })).toContain('(Etc/GMT+5, UTC-05:00)');
    expect(elementsOf(statsChartSvg(series())).every((e) => !/[<>&]/.test(e.text))).toBe(true);
  });
});

describe('renderStatsChart', () => {
  it('is a PNG at twice the SVG size that decodes, small enough for a quick Slack preview', async () => {
    const bytes = await renderStatsChart(series());
    const png = PNG.sync.read(bytes);
    expect([png.width, png.height]).toEqual([
      CHART_SIZE.width * CHART_SCALE,
      CHART_SIZE.height * CHART_SCALE,
    ]);
    expect(bytes.length).toBeLessThan(400_000);
  });

  it('paints the series in their colours, including a series at zero on its axis', async () => {
    const png = PNG.sync.read(await renderStatsChart(series()));
    const count = (hex: string) => {
      const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
      let found = 0;
      for (let i = 0; i < png.data.length; i += 4) {
        if (png.data[i] === r && png.data[i + 1] === g && png.data[i + 2] === b) found += 1;
      }
      return found;
    };
    for (const style of STATS_SERIES) expect(count(style.hex), style.label).toBeGreaterThan(1_000);
  });

  it('gives the same bytes for the same input, and different bytes for different input', async () => {
    const first = await renderStatsChart(series());
    expect(first.equals(await renderStatsChart(series()))).toBe(true);
    expect(first.equals(await renderStatsChart(series(10)))).toBe(false);
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
