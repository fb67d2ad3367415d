/**
 * Tables and cell formats for the benchmark report. One Markdown table serves both the console
 * (cells are padded, so it reads as plain text) and `bench/RESULTS.md`.
 */

export type Align = 'left' | 'right';

export interface Column {
  readonly header: string;
  /** Numbers read best right-aligned; text left (the default). */
  readonly align?: Align;
}

function escapeCell(cell: string): string {
  return cell.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

export function markdownTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  for (const [index, row] of rows.entries()) {
    if (row.length !== columns.length) {
      throw new RangeError(`Row ${index + 1} has ${row.length} cells for ${columns.length} columns`);
    }
  }
  const header = columns.map((column) => escapeCell(column.header));
  const body = rows.map((row) => row.map(escapeCell));
  // A separator cell needs at least three characters (`---`, `--:`).
  const widths = columns.map((_, i) => Math.max(3, ...[header, ...body].map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `| ${cells
      .map((cell, i) => {
        const width = widths[i] ?? 0;
        return columns[i]?.align === 'right' ? cell.padStart(width) : cell.padEnd(width);
      })
      .join(' | ')} |`;
  const separator = `| ${widths
    .map((width, i) => (columns[i]?.align === 'right' ? `${'-'.repeat(width - 1)}:` : '-'.repeat(width)))
    .join(' | ')} |`;
  return [line(header), separator, ...body.map(line)].join('\n');
}

/** Milliseconds below a second (with more decimals the smaller they are), seconds above. */
export function formatDuration(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB'] as const;

export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(value >= 100 ? 0 : 1)} ${BYTE_UNITS[unit]}`;
}

export function formatRatio(value: number): string {
  return `${value.toFixed(2)}×`;
}

/** A relative difference, signed: 0.234 → `+23.4%`. */
export function formatChange(fraction: number): string {
  const percent = fraction * 100;
  const sign = percent > 0 ? '+' : percent < 0 ? '−' : '±';
  return `${sign}${Math.abs(percent).toFixed(1)}%`;
}
