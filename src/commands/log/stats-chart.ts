/**
 * The terminal chart of `lic log stats`: one stacked bar per bucket, a segment per level,
 * scaled so the busiest bucket fills the width, then a legend with each level's total.
 * Pure text; color comes in as a painter from the Renderer (the only module that knows chalk).
 */
import type { ForegroundColorName } from 'chalk';
import { displayWidth } from '../../cli/table.js';
import type { LogLevel } from '../../wire.js';

/** One bucket's counts: its bounds (RFC 3339 UTC) and a count per level counted. */
export interface BucketCounts {
  start: string;
  end: string;
  counts: Partial<Record<LogLevel, number>>;
  total: number;
}

/** The color of each level's segment, after Serilog's console theme (grey debug noise, yellow warnings, red errors). */
const LEVEL_COLORS: Record<LogLevel, ForegroundColorName> = {
  Verbose: 'gray',
  Debug: 'cyan',
  Information: 'green',
  Warning: 'yellow',
  Error: 'red',
  Fatal: 'magenta',
};

/** The block of each level without color (NO_COLOR, TERM=dumb): darker for worse, so the bars still read. */
const LEVEL_BLOCKS: Record<LogLevel, string> = {
  Verbose: '·',
  Debug: ':',
  Information: '░',
  Warning: '▒',
  Error: '▓',
  Fatal: '█',
};

/** `--by`: UTC hours, UTC days, or ISO weeks (Monday 00:00 UTC). */
export type BucketSize = 'hour' | 'day' | 'week';

/** How to draw: the width to fit, the bucket size (for labels), the levels in order, and color or not. */
interface ChartOptions {
  /** terminal columns to fit */
  width: number;
  by: BucketSize;
  /** the levels counted, in order */
  levels: readonly LogLevel[];
  /** paints text in a color; undefined: no color (each level then has its own block) */
  paint?: (color: ForegroundColorName, s: string) => string;
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** A bucket's label: its start in UTC, `2026-11-23 14:00` by hour, `2026-11-23` by day or week. */
function bucketLabel(start: string, by: BucketSize): string {
  return by === 'hour' ? `${start.slice(0, 10)} ${start.slice(11, 16)}` : start.slice(0, 10);
}

/**
 * Cuts `length` cells among `counts` in proportion, by rounding the running sum (so the
 * parts always add up to `length` and no level's share drifts): [3, 1] over 8 → [6, 2].
 */
export function splitCells(counts: readonly number[], length: number): number[] {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return counts.map(() => 0);
  let sum = 0;
  let drawn = 0;
  return counts.map((c) => {
    sum += c;
    const upTo = Math.round((sum / total) * length);
    const cells = upTo - drawn;
    drawn = upTo;
    return cells;
  });
}

/**
 * The chart as lines: `LABEL  BAR  TOTAL` per bucket (a bucket with entries gets at least
 * one cell), then a blank line and the legend (`■ Warning 12`, wrapped to the width) with
 * the grand total. Width: labels and totals first, the bar takes the rest (at least 10).
 */
export function drawChart(rows: readonly BucketCounts[], o: ChartOptions): string {
  const labels = rows.map((r) => bucketLabel(r.start, o.by));
  const labelW = Math.max(0, ...labels.map((l) => l.length));
  const totals = rows.map((r) => fmt(r.total));
  const totalW = Math.max(1, ...totals.map((t) => t.length));
  const barW = Math.max(10, o.width - labelW - totalW - 4);
  const max = Math.max(0, ...rows.map((r) => r.total));
  const block = (level: LogLevel, n: number) =>
    n <= 0 ? '' : o.paint ? o.paint(LEVEL_COLORS[level], '█'.repeat(n)) : LEVEL_BLOCKS[level].repeat(n);
  const lines = rows.map((r, i) => {
    const length = r.total === 0 ? 0 : Math.max(1, Math.round((r.total / max) * barW));
    const cells = splitCells(
      o.levels.map((l) => r.counts[l] ?? 0),
      length,
    );
    const bar = o.levels.map((l, j) => block(l, cells[j]!)).join('');
    return `${labels[i]!.padEnd(labelW)}  ${bar}${' '.repeat(barW - length)}  ${totals[i]!.padStart(totalW)}`;
  });
  const sums = o.levels.map((l) => rows.reduce((a, r) => a + (r.counts[l] ?? 0), 0));
  const items = o.levels.map((l, j) => `${block(l, 1)} ${l} ${fmt(sums[j]!)}`);
  items.push(`total ${fmt(sums.reduce((a, b) => a + b, 0))}`);
  // the legend wraps between items, never inside one
  const legend: string[] = [];
  let line = '';
  for (const item of items) {
    if (line && displayWidth(`${line}   ${item}`) > o.width) {
      legend.push(line);
      line = item;
    } else line = line ? `${line}   ${item}` : item;
  }
  if (line) legend.push(line);
  return [...lines, '', ...legend].join('\n') + '\n';
}
