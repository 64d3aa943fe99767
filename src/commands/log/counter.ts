/**
 * Counting values of a stream of log entries with bounded memory (`lic log top`, `lic log
 * report`): per value its count, first and last time, and a count per UTC day of the period.
 */
import { UsageError } from '../../cli/errors.js';
import { DAY } from '../../time.js';

/** A counted value. */
export interface Counted {
  value: string;
  count: number;
  /** ms since the epoch: the earliest and latest entry seen with this value */
  first: number;
  last: number;
  /** entries per UTC day of the period, oldest first */
  days: Uint32Array;
}

/** The UTC days of a period: the first day's start (ms) and how many days [since, until) touches. */
export interface DaySpan {
  start: number;
  count: number;
}

/** The UTC days [since, until) (ms) touches: at least one. */
export function daySpan(since: number, until: number): DaySpan {
  const start = Math.floor(since / DAY) * DAY;
  const end = Math.max(start + DAY, Math.ceil(until / DAY) * DAY);
  return { start, count: Math.round((end - start) / DAY) };
}

/**
 * The longest period `log top` and `log report` count, in days: a year, leap day included.
 * Every value counted keeps a count per day (a Uint32Array as long as the period), so the
 * period bounds memory and the size of `days` in the output.
 */
export const MAX_PERIOD_DAYS = 366;

/**
 * Refuses a period [since, until) (RFC 3339) longer than MAX_PERIOD_DAYS: UsageError (exit 2)
 * naming `verb`, the period's length and the limit. Checked before any request.
 */
export function checkPeriod(verb: string, since: string, until: string): void {
  const days = (Date.parse(until) - Date.parse(since)) / DAY;
  if (days > MAX_PERIOD_DAYS) {
    throw new UsageError(
      `--since ${since} to --until ${until} is ${Math.ceil(days).toLocaleString('en-US')} days; ${verb} covers at most ${MAX_PERIOD_DAYS} (it counts per day): give a shorter period, e.g. one run per year`,
    );
  }
}

/**
 * Counts values with at most 2 × `keep` distinct values held (each with its per-day counts):
 * when that many are held, the less frequent half is let go (lossy counting, Manku and
 * Motwani 2002), and `floor` remembers the largest count let go. Counts are exact while
 * `floor` is 0; after it a value's count can be low by at most `floor` (a value let go and
 * seen again starts over), and every value seen more than `floor` times in all is still held.
 */
export class ValueCounter {
  private readonly map = new Map<string, Counted>();
  /** the largest count let go: 0 while every count is exact */
  floor = 0;
  /** entries counted (with a value) */
  total = 0;

  constructor(
    private readonly span: DaySpan,
    private readonly keep = 20_000,
  ) {}

  /** Counts `value` seen at `t` (ms). */
  add(value: string, t: number): void {
    this.total++;
    let c = this.map.get(value);
    if (!c) {
      if (this.map.size >= 2 * this.keep) this.prune();
      c = { value, count: 0, first: t, last: t, days: new Uint32Array(this.span.count) };
      this.map.set(value, c);
    }
    c.count++;
    if (t < c.first) c.first = t;
    if (t > c.last) c.last = t;
    const d = Math.floor((t - this.span.start) / DAY);
    if (d >= 0 && d < c.days.length) c.days[d]!++;
  }

  /** How many distinct values are held. */
  get size(): number {
    return this.map.size;
  }

  /** The `n` most frequent values, most frequent first; ties by value, so the order is stable. */
  top(n: number): Counted[] {
    return [...this.map.values()].sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0)).slice(0, n);
  }

  private prune(): void {
    const sorted = [...this.map.values()].sort((a, b) => b.count - a.count);
    for (const c of sorted.slice(this.keep)) {
      this.floor = Math.max(this.floor, c.count);
      this.map.delete(c.value);
    }
  }
}

/** Eight block heights, lowest first: a sparkline's cells. */
const BLOCKS = '▁▂▃▄▅▆▇█';

/**
 * A sparkline of `days` in at most `cells` characters (consecutive days summed into one
 * cell when there are more days than cells): a blank for nothing, else ▁ to █ scaled to the
 * busiest cell.
 */
export function sparkline(days: ArrayLike<number>, cells = 14): string {
  const per = Math.max(1, Math.ceil(days.length / cells));
  const sums: number[] = [];
  for (let i = 0; i < days.length; i += per) {
    let s = 0;
    for (let j = i; j < Math.min(days.length, i + per); j++) s += days[j]!;
    sums.push(s);
  }
  const max = Math.max(0, ...sums);
  return sums.map((s) => (s === 0 ? ' ' : BLOCKS[Math.min(7, Math.floor((s / max) * 7.999))])).join('');
}
