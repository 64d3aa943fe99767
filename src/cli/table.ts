/**
 * Terminal tables (TTY only): columns fitted to the terminal width, drawn page by page
 * as rows arrive, so a list of any length is printed with flat memory. Display width is
 * measured with string-width (East Asian wide characters, emoji, ANSI codes). The
 * piped table (tab-separated) and the data formats live in ./output.ts.
 *
 * The width policy (every list and `lic doctor` follow it; `--wide` turns it off):
 *
 * 1. Each column's natural width is its widest cell of the first page (and its header).
 *    When they all fit, nothing is cut or left out.
 * 2. Columns empty on the page (every cell blank) go first, rightmost first.
 * 3. Every column has a minimum width it keeps (see ColumnKind): ids, numbers, times,
 *    codes (order numbers, template and resource codes, key prefixes) are never cut, so
 *    an identifier is never cut to a prefix it shares with the rows around it; a name
 *    keeps at least 16 columns and enough to tell it from its neighbours; free text 16;
 *    a label 12 (or its header); a URL its scheme, host and port.
 * 4. While the columns do not fit even at their minimums, the column of lowest priority
 *    is left out (Column.priority; among equals the rightmost, the declared order being
 *    most important first) — never fewer than two.
 * 5. The columns left are shrunk towards their minimums: free text first, then URLs,
 *    labels, and names last, the widest first; a cut cell ends in `…` (a URL or code is
 *    cut in the middle instead, keeping its start and end). A last text column uses the
 *    rest of the line; a last column marked `wrap` (a report's prose) wraps onto
 *    continuation lines instead of being cut.
 *
 * Widths are fixed by the first page. A later page's cell wider than its column is cut
 * (text, names, labels that fitting cut, codes and URLs in the middle) or widens that row
 * (ids, numbers, times, a label at its natural width); the row's last text column gives
 * up the difference. A line is wider than the terminal only when two columns cannot fit
 * even at their minimums.
 */
// cli-table3 (the drawing), string-width (with its emoji tables) and wrap-ansi are bundled into this
// module's lazy chunk: output.ts imports this module only when it draws a terminal table, so other
// commands never load them
import Table from 'cli-table3';
import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';
import { HOUR, parseRfc3339 } from '../time.js';

export { terminalWidth } from './layout.js';

/**
 * How a column's cells are shown on a terminal (the module comment has the whole policy):
 * `id` and `number` right-aligned, never cut; `time` an RFC 3339 instant shown compact
 * (`2026-11-23 06:44`), never cut; `code` an identifier (order number, code, key prefix,
 * token, version), never cut on the first page, cut in the middle on a later one; `name`
 * the text that names a record, kept recognisable; `url` a URL or path, cut in the middle
 * keeping scheme, host and port; `text` free text (description, message), cut first;
 * `label` short words (level, status, owner), cut to no less than 12. Default `text`.
 */
export type ColumnKind = 'id' | 'number' | 'time' | 'code' | 'name' | 'url' | 'text' | 'label';

/** Tones a column may give a cell; painted only when color is on. */
type Tone = 'ok' | 'warn' | 'bad' | 'dim' | undefined;

/** A column as the table sees it (output.ts's Column). */
export interface TableColumn<R> {
  header: string;
  get: (row: R) => unknown;
  kind?: ColumnKind;
  tone?: (row: R) => Tone;
  /** which columns a narrow terminal leaves out first: lower first (default 0; among equals the rightmost) */
  priority?: number;
  /** a last column of prose (a report's result): wrapped at spaces onto continuation lines instead of cut */
  wrap?: boolean;
}

/** Paints headers and toned cells (identity functions when color is off). */
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
/** Free text and names are cut to no less than this (a name is recognisable; a description says something). */
const TEXT_MIN = 16;
/** A name keeps enough to differ from its neighbours' (their shared prefix and 2), up to this. */
const NAME_MAX = 40;
const ELLIPSIS = '…';

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

/** The graphemes of `s` (code units for ASCII), for cutting by display width. */
function graphemes(s: string): string[] {
  if (ASCII.test(s)) return [...s];
  return [...(segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })).segment(s)].map((g) => g.segment);
}

/**
 * `s` cut to at most `width` display columns by leaving out a middle part, marked `…`:
 * the first `keep` columns stay (a URL's scheme, host and port), then the rest is shared
 * one third to the start and two thirds to the end, where identifiers and paths differ
 * (`ORD-…01015`, `http://127.0.0.1:8765/…/licenses`). Below `keep + 2` columns, the start only.
 */
export function truncateMiddle(s: string, width: number, keep = 0): string {
  if (displayWidth(s) <= width) return s;
  if (width <= 0) return '';
  if (width < keep + 2) return truncate(s, width);
  const g = graphemes(s);
  const room = width - 1;
  const endRoom = Math.floor(((room - keep) * 2) / 3);
  let tail = '';
  let used = 0;
  for (let i = g.length - 1; i >= 0; i--) {
    const w = displayWidth(g[i]!);
    if (used + w > endRoom) break;
    tail = g[i]! + tail;
    used += w;
  }
  let head = '';
  for (const x of g) {
    const w = displayWidth(x);
    if (used + w > room) break;
    head += x;
    used += w;
  }
  return head + ELLIPSIS + tail;
}

/** Display columns of a URL's `scheme://host:port` (0 for a path or other text): what a cut URL keeps. */
function originWidth(s: string): number {
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]*/i.exec(s);
  return m ? displayWidth(m[0]) : 0;
}

/** Display columns of the prefix `a` and `b` share. */
function sharedPrefixWidth(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return displayWidth(a.slice(0, i));
}

/** An RFC 3339 instant (src/time.ts: a date-time with its zone; a plain date is not an instant) → ms, or NaN. */
const instantMs = (s: string) => parseRfc3339(s, { dateTimeOnly: true }) ?? NaN;
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
      const ms = instantMs(s);
      return Number.isNaN(ms) ? s : `${compact(new Date(ms))}Z`;
    };
  }
  // every part numeric, 24-hour: offsetAt reads the zone's wall clock back from them
  const parts: Intl.DateTimeFormatOptions = {
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  };
  let fmt: Intl.DateTimeFormat;
  try {
    fmt = new Intl.DateTimeFormat('en-US', { ...parts, timeZone: o.timeZone || undefined });
  } catch {
    // an unknown TZ name: the process's own zone
    fmt = new Intl.DateTimeFormat('en-US', parts);
  }
  const offsets = new Map<number, number>();
  const offsetAt = (ms: number): number => {
    const hour = Math.floor(ms / HOUR);
    let off = offsets.get(hour);
    if (off === undefined) {
      const p: Record<string, number> = {};
      for (const part of fmt.formatToParts(new Date(hour * HOUR))) if (part.type !== 'literal') p[part.type] = Number(part.value);
      off = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour! % 24, p.minute!, p.second!) - hour * HOUR;
      if (offsets.size > 10_000) offsets.clear();
      offsets.set(hour, off);
    }
    return off;
  };
  return (s) => {
    const ms = instantMs(s);
    return Number.isNaN(ms) ? s : compact(new Date(ms + offsetAt(ms)));
  };
}

/**
 * The width a column keeps however narrow the terminal (its natural width when narrower):
 * ids, numbers, times and codes all of it; a label 12 or its header; free text 16; a name
 * 16, or enough to differ from the rows next to it (their shared prefix and 2), up to 40;
 * a URL its scheme, host and port and 2 more. `cells` are the first page's cells.
 */
export function minWidth(kind: ColumnKind, header: string, cells: readonly string[], natural: number): number {
  switch (kind) {
    case 'label':
      return Math.max(Math.min(natural, LABEL_MIN), Math.min(natural, displayWidth(header)));
    case 'text':
      return Math.min(natural, TEXT_MIN);
    case 'name': {
      let shared = 0;
      for (let i = 1; i < cells.length; i++) shared = Math.max(shared, sharedPrefixWidth(cells[i - 1]!, cells[i]!));
      return Math.min(natural, Math.max(TEXT_MIN, Math.min(NAME_MAX, shared + 2)));
    }
    case 'url':
      return Math.min(natural, Math.max(TEXT_MIN, ...cells.map((c) => originWidth(c) + 2)));
    default:
      return natural;
  }
}

/** A label (status, level, owner) is cut only beyond this many columns. */
const LABEL_MIN = 12;

/** The total width of the columns `keep` at widths `w`, gaps included. */
const widthOf = (w: readonly number[], keep: readonly number[]) =>
  keep.reduce((a, i) => a + w[i]!, 0) + GAP.length * Math.max(0, keep.length - 1);

/**
 * Which columns (indices, in order) a terminal of `width` shows (steps 2 and 4 of the
 * module comment): all when they fit at their natural widths; else the ones empty on the
 * page go, rightmost first, until the rest fits; then, while the rest does not fit even
 * at the minimums, the one of lowest `priority` (the rightmost among equals) — never
 * fewer than two.
 */
export function chooseColumns(
  c: { natural: readonly number[]; mins: readonly number[]; empty: readonly boolean[]; priority: readonly number[] },
  width: number,
): number[] {
  let keep = c.natural.map((_, i) => i);
  for (let i = keep.length - 1; i >= 0 && keep.length > 2 && widthOf(c.natural, keep) > width; i--) {
    if (c.empty[i]) keep = keep.filter((k) => k !== i);
  }
  while (keep.length > 2 && widthOf(c.mins, keep) > width) {
    let drop = keep[keep.length - 1]!;
    for (const i of keep) if (c.priority[i]! < c.priority[drop]! || (c.priority[i] === c.priority[drop] && i > drop)) drop = i;
    keep = keep.filter((k) => k !== drop);
  }
  return keep;
}

/** The order in which kinds give up width (step 5): free text first, names last. */
const SHRINK_ORDER: readonly ColumnKind[] = ['text', 'url', 'label', 'name'];

/**
 * Column widths for `natural` widths in `width` columns (step 5 of the module comment):
 * shrinks the widest column of each kind in SHRINK_ORDER, one step at a time, never below
 * `mins`; then, if it still does not fit, the last text column takes what is left (at least 1).
 */
export function fitWidths(natural: readonly number[], kinds: readonly ColumnKind[], mins: readonly number[], width: number): number[] {
  const w = [...natural];
  const all = w.map((_, i) => i);
  for (const tier of SHRINK_ORDER) {
    let over = widthOf(w, all) - width;
    while (over > 0) {
      let pick = -1;
      for (let i = 0; i < w.length; i++) if (kinds[i] === tier && w[i]! > mins[i]! && (pick < 0 || w[i]! > w[pick]!)) pick = i;
      if (pick < 0) break;
      // down to the next-widest column's width (or the minimum) in one step
      let next = mins[pick]!;
      for (let i = 0; i < w.length; i++) if (i !== pick && kinds[i] === tier && w[i]! < w[pick]! && w[i]! > next) next = w[i]!;
      const cut = Math.min(over, w[pick]! - next);
      w[pick]! -= Math.max(1, cut);
      over = widthOf(w, all) - width;
    }
  }
  const over = widthOf(w, all) - width;
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
  /** the headers of the columns the first page left out for the width (step 4), in declared order */
  omitted: string[] = [];
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
    const drawn: { cells: readonly string[]; paint: (s: string, i: number) => string }[] = [];
    if (!this.widths) {
      let natural = cols.map((c, i) =>
        Math.max(this.o.header === false ? 0 : displayWidth(c.header), ...cells.map((row) => displayWidth(row[i]!))),
      );
      let mins = natural.map((n, i) =>
        minWidth(
          this.kinds[i]!,
          cols[i]!.header,
          cells.map((row) => row[i]!),
          n,
        ),
      );
      // too many columns for the terminal: empty ones, then the least important, are left out
      if (!this.o.wide) {
        const keep = chooseColumns(
          { natural, mins, empty: cols.map((_, i) => cells.every((row) => row[i] === '')), priority: cols.map((c) => c.priority ?? 0) },
          this.o.width,
        );
        if (keep.length < cols.length) {
          this.omitted = cols.filter((_, i) => !keep.includes(i)).map((c) => c.header);
          this.columns = cols = keep.map((i) => cols[i]!);
          this.kinds = keep.map((i) => this.kinds[i]!);
          natural = keep.map((i) => natural[i]!);
          mins = keep.map((i) => mins[i]!);
          cells = cells.map((row) => keep.map((i) => row[i]!));
        }
      }
      this.widths = this.o.wide ? natural : fitWidths(natural, this.kinds, mins, this.o.width);
      this.whole = this.kinds.map((k, i) => k === 'label' && this.widths![i]! >= natural[i]!);
      // a last text column is not padded: later pages' longer text may use the rest of the line
      const last = cols.length - 1;
      if (!this.o.wide && cuttable(this.kinds[last]!)) {
        const rest = this.o.width - this.widths.reduce((a, b) => a + b, 0) - GAP.length * last + this.widths[last]!;
        this.widths[last] = Math.max(this.widths[last]!, rest);
      }
      if (this.o.header !== false) drawn.push({ cells: cols.map((c) => c.header), paint: (s) => this.o.paint.head(s) });
    }
    for (let j = 0; j < rows.length; j++) {
      const r = rows[j]!;
      drawn.push({ cells: cells[j]!, paint: (s, i) => this.o.paint.tone(cols[i]!.tone?.(r), s) });
    }
    return this.draw(drawn);
  }

  /**
   * The widths of one row: the page's, except that a never-cut cell wider than its column
   * (an id, number, time or whole label of a later page; any cell with --wide) widens it,
   * and the row's text columns give the room back, last first.
   */
  private rowWidths(cells: readonly string[]): number[] {
    const w = [...this.widths!];
    if (this.o.wide) return w.map((x, i) => Math.max(x, displayWidth(cells[i]!)));
    let extra = 0;
    for (let i = 0; i < cells.length; i++) {
      if ((cuttable(this.kinds[i]!) && !this.whole[i]) || this.kinds[i] === 'code') continue;
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
    return w;
  }

  /**
   * One row's cells ready for cli-table3 under widths `w`, painted: what cli-table3 cannot
   * cut is cut here (a URL or code in the middle; text with wide characters or emoji by whole
   * graphemes, where cli-table3 cuts UTF-16 code units); a `wrap` last column too long
   * for its width becomes lines (wrap-ansi), which cli-table3 draws under the cell.
   */
  private prepare(cells: readonly string[], w: readonly number[], paint: (s: string, i: number) => string): string[] {
    const last = cells.length - 1;
    return cells.map((t, i) => {
      const kind = this.kinds[i]!;
      if (!this.o.wide && displayWidth(t) > w[i]!) {
        if (i === last && this.columns[i]?.wrap) {
          return wrapAnsi(t, w[i]!, { hard: true, trim: true })
            .split('\n')
            .map((part) => paint(part, i))
            .join('\n');
        }
        if (kind === 'url') t = truncateMiddle(t, w[i]!, originWidth(t));
        else if (kind === 'code') t = truncateMiddle(t, w[i]!);
        else if (!ASCII.test(t)) t = truncate(t, w[i]!);
      }
      return t === '' ? '' : paint(t, i);
    });
  }

  /**
   * `lines` (the header and rows) drawn by cli-table3, borderless with GAP between columns
   * and no trailing spaces: consecutive lines of the same widths (rowWidths) make one table,
   * so a page is one table unless a row had to widen.
   */
  private draw(lines: readonly { cells: readonly string[]; paint: (s: string, i: number) => string }[]): string {
    let out = '';
    let group: string[][] = [];
    let widths: number[] = [];
    const flush = () => {
      if (group.length === 0) return;
      const table = new Table({
        chars: { ...NO_BORDER, middle: GAP },
        colWidths: widths,
        colAligns: this.kinds.map((k) => (k === 'id' || k === 'number' ? 'right' : 'left')),
        wordWrap: false,
        truncate: ELLIPSIS,
        style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
      });
      table.push(...group);
      out += `${table
        .toString()
        .split('\n')
        .map((l) => l.trimEnd())
        .join('\n')}\n`;
      group = [];
    };
    for (const l of lines) {
      const w = this.rowWidths(l.cells);
      // cli-table3's layout checks every cell against the others (rowSpan/colSpan): a table of at most
      // CHUNK rows keeps that cost linear in a page's rows
      if (group.length >= CHUNK || w.some((x, i) => x !== widths[i])) {
        flush();
        widths = w;
      }
      group.push(this.prepare(l.cells, w, l.paint));
    }
    flush();
    return out;
  }
}

/** The most rows one cli-table3 table draws (draw). */
const CHUNK = 50;

/** cli-table3's border characters, all empty: lic's tables have none (the column gap is `middle`). */
const NO_BORDER = Object.fromEntries(
  ['top', 'top-mid', 'top-left', 'top-right', 'bottom', 'bottom-mid', 'bottom-left', 'bottom-right']
    .concat(['left', 'left-mid', 'mid', 'mid-mid', 'right', 'right-mid', 'middle'])
    .map((k) => [k, '']),
);

/** The kind of a column without one (`--fields`): `number` when every value is a number, `time` when every one is an RFC 3339 instant, else `text`. */
function guessKind(values: readonly unknown[]): ColumnKind {
  const present = values.filter((v) => v !== null && v !== undefined && v !== '');
  if (present.length === 0) return 'text';
  if (present.every((v) => typeof v === 'number')) return 'number';
  if (present.every((v) => typeof v === 'string' && !Number.isNaN(instantMs(v)))) return 'time';
  return 'text';
}

/** Kinds whose cells are cut to their column (the others are whole, or cut in the middle). */
const cuttable = (k: ColumnKind) => k === 'text' || k === 'name' || k === 'url' || k === 'label';
