/**
 * Terminal tables (TTY only): columns fitted to the terminal width, drawn page by page
 * as rows arrive, so a list of any length is printed with flat memory. Display width is
 * measured with string-width (East Asian wide characters, emoji, ANSI codes). The
 * piped table (tab-separated) and the data formats live in ./output.ts.
 *
 * Fitting: each column's natural width is its widest cell of the first page (and its
 * header); while the total exceeds the terminal width, the widest shrinkable column
 * (`text` first, then `label`) loses one column, never below its minimum (`text`: 8
 * or less when the column is narrower; `label`: 8 or its header, whichever is wider). `id`, `number` and `time`
 * cells are never truncated; if the table still does not fit, the last `text` column
 * takes what is left (at least 1) and the line is as wide as it must be; a last text
 * column may use the rest of the line on later pages. `--wide`
 * turns fitting off. A later page's cell wider than its column is truncated with `…`
 * (text, and a label column that fitting cut) or widens that row (id, number, time, a
 * label column at its natural width); the row's last text column gives up the difference.
 */
// string-width (with its emoji tables) is bundled into this module's lazy chunk: output.ts
// imports this module only when it draws a terminal table, so other commands never load it
import stringWidth from 'string-width';

/**
 * How a column's cells are shown on a terminal: `id` and `number` right-aligned and
 * never truncated, `time` an RFC 3339 instant shown compact (`2026-11-23 06:44`) and
 * never truncated, `text` free text truncated first (name, description, message),
 * `label` short words truncated last (level, status, prefix). Default `text`.
 */
export type ColumnKind = 'id' | 'number' | 'time' | 'text' | 'label';

/** Tones a column may give a cell; painted only when colour is on. */
type Tone = 'ok' | 'warn' | 'bad' | 'dim' | undefined;

/** A column as the table sees it (output.ts's Column). */
export interface TableColumn<R> {
  header: string;
  get: (row: R) => unknown;
  kind?: ColumnKind;
  tone?: (row: R) => Tone;
}

/** Paints headers and toned cells (identity functions when colour is off). */
export interface Painter {
  head(s: string): string;
  tone(t: Tone | string | undefined, s: string): string;
}

export interface TableOptions {
  /** terminal width in columns (see terminalWidth) */
  width: number;
  /** `--wide`: no fitting, nothing truncated */
  wide?: boolean;
  /** `--utc`: times in UTC (`2026-11-23 06:44Z`) instead of local time */
  utc?: boolean;
  /** IANA time zone for local times (the context's TZ); default: the process's zone */
  timeZone?: string;
  /** false for live output (`log tail --follow`): rows only */
  header?: boolean;
  /** a cell as text (booleans yes/no, objects as JSON): output.ts's cellText */
  cellText: (v: unknown) => string;
  paint: Painter;
}

/** Column separator. */
const GAP = '  ';
const TEXT_MIN = 8;
const ELLIPSIS = '…';

/**
 * The width tables fit into: a positive integer `COLUMNS` (env) wins, as in POSIX
 * shells and Python's shutil.get_terminal_size; else the stream's `columns`; else 80.
 */
export function terminalWidth(columns: number | undefined, env: Record<string, string | undefined>): number {
  const fromEnv = env.COLUMNS && /^\d+$/.test(env.COLUMNS.trim()) ? Number(env.COLUMNS.trim()) : 0;
  if (fromEnv > 0) return fromEnv;
  if (columns && columns > 0) return columns;
  return 80;
}

/** Display width of `s` in terminal columns (string-width: wide characters 2, ANSI codes 0). */
export function displayWidth(s: string): number {
  // plain ASCII is by far the common case: its width is its length
  return ASCII.test(s) ? s.length : stringWidth(s);
}

const ASCII = /^[\x20-\x7e]*$/;

// made on first use: creating a Segmenter loads ICU's break data (milliseconds), not needed for ASCII
let segmenter: Intl.Segmenter | undefined;

/** `s` cut to at most `width` display columns, ending in `…` when cut; whole graphemes only. */
export function truncate(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  if (width <= 0) return '';
  if (ASCII.test(s)) return s.slice(0, width - 1) + ELLIPSIS;
  let out = '';
  let used = 0;
  for (const { segment } of (segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })).segment(s)) {
    const w = displayWidth(segment);
    if (used + w > width - 1) break;
    out += segment;
    used += w;
  }
  return out + ELLIPSIS;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})$/;
const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/**
 * Formats RFC 3339 instants compactly for a terminal: `2026-11-23 06:44` in the local
 * zone (`timeZone`, else the process's), or `2026-11-23 06:44Z` with `utc`. Text that
 * is not an RFC 3339 instant is returned unchanged. The zone offset is looked up once
 * per hour of time (Intl), so long lists stay fast.
 */
export function timeFormatter(o: { utc?: boolean; timeZone?: string }): (s: string) => string {
  const compact = (d: Date) =>
    `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`;
  if (o.utc) {
    return (s) => {
      const ms = RFC3339.test(s) ? Date.parse(s) : NaN;
      return Number.isNaN(ms) ? s : `${compact(new Date(ms))}Z`;
    };
  }
  let fmt: Intl.DateTimeFormat;
  try {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: o.timeZone || undefined,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  } catch {
    // an unknown TZ name: the process's own zone
    fmt = new Intl.DateTimeFormat('en-US', {
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }
  const offsets = new Map<number, number>();
  const offsetAt = (ms: number): number => {
    const hour = Math.floor(ms / 3_600_000);
    let off = offsets.get(hour);
    if (off === undefined) {
      const p: Record<string, number> = {};
      for (const part of fmt.formatToParts(new Date(hour * 3_600_000))) if (part.type !== 'literal') p[part.type] = Number(part.value);
      off = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour! % 24, p.minute!, p.second!) - hour * 3_600_000;
      if (offsets.size > 10_000) offsets.clear();
      offsets.set(hour, off);
    }
    return off;
  };
  return (s) => {
    const ms = RFC3339.test(s) ? Date.parse(s) : NaN;
    return Number.isNaN(ms) ? s : compact(new Date(ms + offsetAt(ms)));
  };
}

/** Minimum width a shrinkable column gives up to (its natural width when narrower). */
function minWidth(kind: ColumnKind, header: string, natural: number): number {
  // a label of up to 12 columns (a key prefix, a status such as "Completed") is never cut; a longer one not below its header
  if (kind === 'label') return Math.max(Math.min(natural, LABEL_MIN), Math.min(natural, displayWidth(header)));
  return Math.min(natural, TEXT_MIN);
}

/** A label (status, level, prefix, owner) is cut only beyond this many columns. */
const LABEL_MIN = 12;

/**
 * Which columns a terminal of `width` shows: all when they fit at their minimum widths,
 * else the first ones that do (the columns are declared most important first), dropping
 * from the right — never fewer than two. `--wide` shows every column.
 */
export function visibleColumns(kinds: readonly ColumnKind[], mins: readonly number[], width: number): number {
  let n = kinds.length;
  const need = (k: number) => mins.slice(0, k).reduce((a, b) => a + b, 0) + GAP.length * Math.max(0, k - 1);
  while (n > 2 && need(n) > width) n--;
  return n;
}

/**
 * Column widths for `natural` widths in `width` columns (see the module comment):
 * shrinks the widest `text` column, then the widest `label` column, one step at a time,
 * never below `mins`; then the last text column takes what is left (at least 1).
 */
export function fitWidths(natural: readonly number[], kinds: readonly ColumnKind[], mins: readonly number[], width: number): number[] {
  const w = [...natural];
  const sep = GAP.length * Math.max(0, w.length - 1);
  const total = () => w.reduce((a, b) => a + b, 0) + sep;
  for (const tier of ['text', 'label'] as const) {
    let over = total() - width;
    while (over > 0) {
      let pick = -1;
      for (let i = 0; i < w.length; i++) if (kinds[i] === tier && w[i]! > mins[i]! && (pick < 0 || w[i]! > w[pick]!)) pick = i;
      if (pick < 0) break;
      // down to the next-widest column's width (or the minimum) in one step
      let next = mins[pick]!;
      for (let i = 0; i < w.length; i++) if (i !== pick && kinds[i] === tier && w[i]! < w[pick]! && w[i]! > next) next = w[i]!;
      const cut = Math.min(over, w[pick]! - next);
      w[pick]! -= Math.max(1, cut);
      over = total() - width;
    }
  }
  const over = total() - width;
  const last = kinds.lastIndexOf('text');
  if (over > 0 && last >= 0) w[last] = Math.max(1, w[last]! - over);
  return w;
}

/**
 * A table drawn page by page: `page(rows)` returns the text of the rows (with the
 * header before the first page's rows); widths are fixed by the first non-empty page.
 * Holds no rows between pages.
 */
export class TableStream<R> {
  private widths?: number[];
  /** label columns that fitting left at their natural width: a later, wider label widens its row instead of being cut */
  private whole: boolean[] = [];
  private kinds: ColumnKind[];
  private readonly time: (s: string) => string;
  /** whether the column said its kind; the others (`--fields`) are guessed from the first page */
  private readonly given: boolean[];

  constructor(
    private columns: readonly TableColumn<R>[],
    private readonly o: TableOptions,
  ) {
    this.kinds = columns.map((c) => c.kind ?? 'text');
    this.given = columns.map((c) => c.kind !== undefined);
    this.time = timeFormatter(o);
  }

  /** The text of one cell (one line: tabs and line breaks become spaces; times compact). */
  private cell(c: TableColumn<R>, i: number, r: R): string {
    const t = this.o.cellText(c.get(r));
    if (this.kinds[i] === 'time') return this.time(t);
    return /[\t\r\n]/.test(t) ? t.replace(/\r?\n|[\t\r]/g, ' ') : t;
  }

  /** Renders `rows`; '' for no rows (no header for an empty first page). */
  page(rows: readonly R[]): string {
    if (rows.length === 0) return '';
    let cols = this.columns;
    if (!this.widths) this.kinds = cols.map((c, i) => (this.given[i] ? this.kinds[i]! : guessKind(rows.map((r) => c.get(r)))));
    let cells = rows.map((r) => cols.map((c, i) => this.cell(c, i, r)));
    let out = '';
    if (!this.widths) {
      let natural = cols.map((c, i) =>
        Math.max(this.o.header === false ? 0 : displayWidth(c.header), ...cells.map((row) => displayWidth(row[i]!))),
      );
      let mins = natural.map((n, i) => minWidth(this.kinds[i]!, cols[i]!.header, n));
      // too many columns for the terminal even at their minimums: the last ones are left out
      const shown = this.o.wide ? cols.length : visibleColumns(this.kinds, mins, this.o.width);
      if (shown < cols.length) {
        this.columns = cols = cols.slice(0, shown);
        this.kinds = this.kinds.slice(0, shown);
        natural = natural.slice(0, shown);
        mins = mins.slice(0, shown);
        cells = cells.map((row) => row.slice(0, shown));
      }
      this.widths = this.o.wide ? natural : fitWidths(natural, this.kinds, mins, this.o.width);
      this.whole = this.kinds.map((k, i) => k === 'label' && this.widths![i]! >= natural[i]!);
      // a last text column is not padded: later pages' longer text may use the rest of the line
      const last = cols.length - 1;
      if (!this.o.wide && shrinkable(this.kinds[last]!)) {
        const rest = this.o.width - this.widths.reduce((a, b) => a + b, 0) - GAP.length * last + this.widths[last]!;
        this.widths[last] = Math.max(this.widths[last]!, rest);
      }
      if (this.o.header !== false) {
        out +=
          this.line(
            cols.map((c) => c.header),
            this.widths,
            (s) => this.o.paint.head(s),
          ) + '\n';
      }
    }
    for (let j = 0; j < rows.length; j++) {
      const r = rows[j]!;
      out += this.line(cells[j]!, this.widths, (s, i) => this.o.paint.tone(cols[i]!.tone?.(r), s)) + '\n';
    }
    return out;
  }

  /** One line of cells under `widths`: truncated, padded (ids and numbers to the right), painted; no trailing spaces. */
  private line(cells: readonly string[], widths: readonly number[], paint: (s: string, i: number) => string): string {
    const w = [...widths];
    if (!this.o.wide) {
      // a never-truncated cell wider than its column: the row's text columns give the room back, last first
      let extra = 0;
      for (let i = 0; i < cells.length; i++) {
        if (shrinkable(this.kinds[i]!) && !this.whole[i]) continue;
        const more = Math.max(0, displayWidth(cells[i]!) - w[i]!);
        extra += more;
        w[i]! += more;
      }
      for (let i = w.length - 1; i >= 0 && extra > 0; i--) {
        if (this.kinds[i] !== 'text') continue;
        const give = Math.min(extra, w[i]! - 1);
        w[i]! -= give;
        extra -= give;
      }
    }
    const last = cells.length - 1;
    let out = '';
    for (let i = 0; i <= last; i++) {
      const kind = this.kinds[i]!;
      let t = cells[i]!;
      if (!this.o.wide && shrinkable(kind) && !this.whole[i]) t = truncate(t, w[i]!);
      const pad = ' '.repeat(Math.max(0, w[i]! - displayWidth(t)));
      const right = kind === 'id' || kind === 'number';
      const painted = t === '' ? '' : paint(t, i);
      out += right ? pad + painted : i === last ? painted : painted + pad;
      if (i < last) out += GAP;
    }
    return out.trimEnd();
  }
}

/** The kind of a column without one (`--fields`): `number` when every value is a number, `time` when every one is an RFC 3339 instant, else `text`. */
function guessKind(values: readonly unknown[]): ColumnKind {
  const present = values.filter((v) => v !== null && v !== undefined && v !== '');
  if (present.length === 0) return 'text';
  if (present.every((v) => typeof v === 'number')) return 'number';
  if (present.every((v) => typeof v === 'string' && RFC3339.test(v))) return 'time';
  return 'text';
}

const shrinkable = (k: ColumnKind) => k === 'text' || k === 'label';
