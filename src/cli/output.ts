/**
 * The one renderer (docs/architecture.md): every result goes through here, and each format
 * has ONE writer, made by `Renderer.openList` (a ListWriter: begin, write a batch, end): a
 * whole list (`list`) and a single record (`record`) go through the same writers as a list
 * streamed page by page (`--all`, `log tail`), with stdout's backpressure respected.
 * `json` prints the body it is given (the list machinery normalises it to the documented
 * shape unless --raw; pretty on a TTY, one line when piped), or streams one object of that
 * shape; `ndjson` one JSON record per line; `csv` (header row, RFC 4180 quoting by
 * csv-stringify) and `tsv` (header row; tabs/newlines/backslashes escaped as `\t` `\n`
 * `\\`) the columns given (the list machinery gives the records' wire fields); `table` a
 * fitted terminal table (./table.ts, cli-table3) drawn page by page on a TTY and the same
 * columns as tab-separated text (no header; no color unless forced by
 * FORCE_COLOR/CLICOLOR_FORCE) when piped. A record's table format is the record view
 * (`field  value` lines). Only this module knows chalk and csv-stringify (./table.ts: string-width).
 */
import type { ForegroundColorName } from 'chalk';
import type { Context } from './context.js';
import { terminalWidth, wrapText, wrapValue } from './layout.js';
import { collectAfterRecordData } from './memory.js';
import { JsonListStream, dataCell, ndjsonLines, tsvLine, type ListShape } from './list/format.js';
import { pageJsonItems, pageNdjson, type PageText } from './list/page-text.js';
import type { ColumnKind, Painter, TableStream } from './table.js';

export type { ListShape } from './list/format.js';

export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv', 'tsv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface Column<R = Record<string, unknown>> {
  header: string;
  get: (row: R) => unknown;
  /** how a terminal table shows the cells (alignment, truncation, times; ./table.ts); default `text` */
  kind?: ColumnKind;
  /** color hint for TTY tables */
  tone?: (row: R) => 'ok' | 'warn' | 'bad' | 'dim' | undefined;
  /** which columns a narrow terminal leaves out first: lower first (default 0; among equals the rightmost; ./table.ts) */
  priority?: number;
  /** a last column of prose (a report's result): wrapped onto continuation lines on a terminal instead of cut */
  wrap?: boolean;
}

export interface RenderOptions {
  format: OutputFormat;
  /** color allowed (TTY, not NO_COLOR, not --no-color; or FORCE_COLOR) */
  color: boolean;
  quiet: boolean;
  /** `-v/--verbose`: success notes also off a terminal (Renderer.note) */
  verbose?: boolean;
  /** `--raw`: json prints the service's body untouched (no normalisation) */
  raw?: boolean;
  /** `--json FIELDS`: the field names given (a list checks them like --fields) */
  jsonFields?: string[];
  /** `--wide`: terminal tables show every cell in full instead of fitting the width */
  wide?: boolean;
  /** `--utc`: terminal tables show times in UTC instead of local time */
  utc?: boolean;
}

/** Rows to a terminal table after which a faster way (ndjson, a pager) is suggested once on stderr. */
const BIG_TTY_LIST = 5_000;

/**
 * Decides color from flags and env the usual way: `--no-color` and a non-empty
 * `NO_COLOR` (https://no-color.org) always win; then `FORCE_COLOR` (`0`/`false` off,
 * another non-empty value on, as chalk's supports-color) and `CLICOLOR_FORCE` (non-empty,
 * not `0`: on; https://bixense.com/clicolors/) turn it on even off a terminal; otherwise
 * color on a terminal that is not `TERM=dumb`.
 */
export function colorEnabled(ctx: Context, flag: boolean | undefined): boolean {
  if (flag === false) return false;
  if (ctx.env.NO_COLOR !== undefined && ctx.env.NO_COLOR !== '') return false;
  const force = ctx.env.FORCE_COLOR;
  // FORCE_COLOR=0 forces color off, as in Node and chalk's supports-color
  if (force === '0' || force === 'false') return false;
  if (force !== undefined && force !== '') return true;
  const cliForce = ctx.env.CLICOLOR_FORCE;
  if (cliForce !== undefined && cliForce !== '' && cliForce !== '0') return true;
  if (ctx.env.TERM === 'dumb') return false;
  return ctx.stdout.isTTY;
}

/** A cell as text: strings as-is, booleans yes/no, null/undefined empty, objects as JSON. */
function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** TSV cell: tabs and line breaks would break the columns, so they become spaces / `\n`. */
const tsvCell = (s: string) => s.replace(/\t/g, ' ').replace(/\r?\n/g, '\\n');

/** A list written batch by batch (Renderer.openList); each method resolves once stdout took the text. */
export interface ListWriter<R> {
  /** starts the output; `envelope` is the first page's body (json keeps its non-list fields) */
  begin(envelope: Record<string, unknown>): Promise<void>;
  /** writes a batch of records (a page) */
  write(records: readonly R[]): Promise<void>;
  /**
   * Writes a page's records from the service's own text (./list/page-text.ts), exactly as
   * `write` would print them parsed; only the formats that print records as JSON text have it.
   */
  writeText?(page: PageText): Promise<void>;
  /** finishes the output; `total` is the list's total count for json (omitted when undefined) */
  end(total?: number): Promise<void>;
  /**
   * Writes a whole document already in hand (a list body, a record) as it is, instead of
   * begin/write/end; only json has it: it prints the body, not a shape rebuilt around the records.
   */
  whole?(body: unknown): Promise<void>;
}

/** The shape openList is given for a whole list or record (Renderer.list, record): json prints the body itself (`whole`). */
const NO_SHAPE: ListShape = { arrayField: 'items' };

export interface ListWriterOptions {
  /**
   * Output that never ends on its own (`log tail --follow`): a TTY table becomes aligned
   * lines printed as they come (no header) and `json` one record per line, as ndjson.
   */
  live?: boolean;
}

/**
 * The one renderer (docs/architecture.md) of a command's results in the chosen format (`opts`):
 * `list`, `record`, `json`, `raw` and the streaming `openList` write data to stdout;
 * `note`, `info` and `warn` write to stderr, and decide there, once, who hears what
 * (docs/output-and-scripts.md, "What goes to stderr"): success notes only for a person at a
 * terminal, status and reports unless --quiet, warnings always. Writes resolve after
 * stdout's backpressure.
 */
export class Renderer {
  constructor(
    private readonly ctx: Context,
    readonly opts: RenderOptions,
  ) {}

  /** Prints the body as JSON: pretty on a TTY, one line when piped (always one line for ndjson). */
  json(body: unknown): void {
    const pretty = this.ctx.stdout.isTTY && this.opts.format !== 'ndjson';
    this.ctx.stdout.write(pretty ? `${JSON.stringify(body, null, 2)}\n` : `${JSON.stringify(body)}\n`);
  }

  /**
   * The result of a verb that changes one record (update, delete): with `-o json` the
   * service's reply `body` on stdout, otherwise the one-line `message` as a success note
   * (stdout stays empty, so a script that pipes the other formats reads nothing it must skip).
   */
  done(body: unknown, message: string): void {
    if (this.opts.format === 'json') this.json(body);
    else this.note(message);
  }

  /**
   * A whole list in hand, through the same writer as a streamed one (openList): begin,
   * write(rows), end; for json the body as given (Renderer.json), for the others `rows`
   * under `columns` (ndjson one line per row; csv/tsv a header and the rows; the table).
   */
  async list<R>(body: unknown, rows: R[], columns: Column<R>[]): Promise<void> {
    await this.whole(this.openList(columns), body, rows);
  }

  /** Writes a whole document through `writer`: json's `whole(body)`, else begin, write(rows), end. */
  private async whole<R>(writer: ListWriter<R>, body: unknown, rows: R[]): Promise<void> {
    if (writer.whole) return writer.whole(body);
    await writer.begin({});
    await writer.write(rows);
    await writer.end();
  }

  /**
   * One dim line on stderr under a terminal table that left columns out for the width:
   * which, and `--wide` (a note, not data: stdout keeps the table only; not with --quiet).
   */
  private async omittedNote<R>(table: TableStream<R>): Promise<void> {
    if (table.omitted.length === 0) return;
    const paint = await this.painter();
    this.info(paint.tone('dim', `(${table.omitted.join(', ')} left out for the width; --wide shows every column)`));
  }

  /** A terminal table of `columns` (./table.ts) fitted to stdout's width, with the --wide/--utc choices and color. */
  private async tableStream<R>(columns: Column<R>[], header = true): Promise<TableStream<R>> {
    // loaded here, not at start: only a terminal table needs it (and string-width, Intl.Segmenter)
    const { TableStream, terminalWidth } = await import('./table.js');
    return new TableStream(columns, {
      width: terminalWidth(this.ctx.stdout.columns, this.ctx.env),
      wide: this.opts.wide,
      utc: this.opts.utc,
      timeZone: this.ctx.env.TZ,
      header,
      cellText,
      paint: await this.painter(),
    });
  }

  /**
   * One record: the body for json; for ndjson one line of `data.record` (else the body);
   * for csv/tsv a header of the field names and one row of values, `data.fields` (wire
   * names, raw values) else `fields`; these three through the list writers (openList). The
   * table format is the record view (recordView): `field  value` lines, or `field\tvalue` piped.
   */
  async record(body: unknown, fields: [string, unknown][], data?: { record: unknown; fields: [string, unknown][] }): Promise<void> {
    if (this.opts.format === 'table') return this.recordView(fields);
    const cells = data?.fields ?? fields;
    const columns: Column<unknown>[] = cells.map(([k, v]) => ({ header: k, get: () => v }));
    await this.whole(this.openList(columns), body, [data ? data.record : body]);
  }

  /** The table format of one record: `field  value` lines wrapped to a terminal, `field\tvalue` lines piped. */
  private async recordView(fields: [string, unknown][]): Promise<void> {
    if (!this.ctx.stdout.isTTY) {
      this.ctx.stdout.write(fields.map(([k, v]) => `${k}\t${tsvCell(cellText(v))}`).join('\n') + '\n');
      return;
    }
    // each value wrapped to the terminal at spaces, continuing under itself, its own spaces kept (./layout.ts wrapValue),
    // measured as the tables measure (string-width: a wide character 2 columns), which loads here
    const paint = await this.painter();
    const { displayWidth } = await import('./table.js');
    const w = fields.reduce((m, [k]) => Math.max(m, k.length), 0);
    const cols = terminalWidth(this.ctx.stdout.columns, this.ctx.env);
    const line = ([k, v]: [string, unknown]) => {
      const text = wrapValue(`${k.padEnd(w)}  `, cellText(v), cols, displayWidth);
      return paint.head(k.padEnd(w)) + text.slice(w);
    };
    this.ctx.stdout.write(fields.map(line).join('\n') + '\n');
  }

  /**
   * The one writer of each format (the only switch over formats that prints data): for a
   * list that arrives in batches (pages), and through `list` and `record` for one in hand.
   * Every format: ndjson, csv, tsv and
   * the piped table write each batch at once, so memory stays flat; json streams ONE
   * object of the server's shape (`{success, code, message, <array>: [...], <total>: N}`);
   * a TTY table is drawn page by page with the widths of the first page (./table.ts),
   * and a list of more than BIG_TTY_LIST rows gets a note on stderr suggesting ndjson or
   * a pager (once; not with --quiet). `shape.what` (a ListDef's plural noun) names the rows;
   * json's `whole` prints a document in hand as it is (a record, a --raw body).
   */
  openList<R>(columns: Column<R>[], shape: ListShape = NO_SHAPE, o: ListWriterOptions = {}): ListWriter<R> {
    const format = this.opts.format === 'json' && o.live ? 'ndjson' : this.opts.format;
    const noop = async () => {};
    switch (format) {
      case 'ndjson':
        return { begin: noop, end: noop, write: (rs) => this.put(ndjsonLines(rs)), writeText: (p) => this.putAll(pageNdjson(p)) };
      case 'json': {
        const pretty = this.ctx.stdout.isTTY;
        const js = new JsonListStream(shape, pretty);
        return {
          begin: (env) => this.put(js.open(env)),
          write: (rs) => (rs.length ? this.put(js.items(rs)) : Promise.resolve()),
          end: (total) => this.put(js.close(total)),
          whole: async (body) => this.json(body),
          ...(pretty ? {} : { writeText: (p: PageText) => this.put(js.itemsText(pageJsonItems(p), p.count)) }),
        };
      }
      case 'csv':
      case 'tsv':
        return {
          begin: async () => this.put(await this.delimited([columns.map((c) => c.header)])),
          write: async (rs) =>
            rs.length ? this.put(await this.delimited(rs.map((r) => columns.map((c) => dataCell(c.get(r)))))) : undefined,
          end: noop,
        };
      default: {
        if (!this.ctx.stdout.isTTY) {
          return { begin: noop, end: noop, write: async (rs) => this.put(await this.pipedLines(rs, columns)) };
        }
        if (o.live) return this.liveLines(columns);
        const what = (shape as ListShape & { what?: string }).what ?? 'rows';
        const table = this.tableStream(columns);
        let rows = 0;
        return {
          begin: noop,
          write: async (rs) => {
            // once, when the rows pass the mark (the total may be more than --limit lets through, so rows decide)
            if (rows <= BIG_TTY_LIST && rows + rs.length > BIG_TTY_LIST) {
              this.info(
                `lic: more than ${BIG_TTY_LIST.toLocaleString('en-US')} ${what} to a terminal; -o ndjson or a pager (| less -S) is faster`,
              );
            }
            rows += rs.length;
            const text = (await table).page(rs);
            await this.put(text);
            // cli-table3 makes some 20 objects per cell it draws: let them go with the page they drew (./memory.ts)
            collectAfterRecordData(text.length * 40);
          },
          end: async () => this.omittedNote(await table),
        };
      }
    }
  }

  /**
   * The piped table: one tab-separated line per row, no header; cells colored by their
   * tone only when color is forced off a terminal (FORCE_COLOR, CLICOLOR_FORCE).
   */
  private async pipedLines<R>(rows: readonly R[], columns: Column<R>[]): Promise<string> {
    const paint = this.opts.color ? await this.painter() : undefined;
    let out = '';
    for (const r of rows)
      out +=
        columns.map((c) => (paint ? paint.tone(c.tone?.(r), tsvCell(cellText(c.get(r)))) : tsvCell(cellText(c.get(r))))).join('\t') + '\n';
    return out;
  }

  /** TTY lines for live output: the terminal table's rows (widths of the first batch, fitted), colored by tone, no header. */
  private liveLines<R>(columns: Column<R>[]): ListWriter<R> {
    const table = this.tableStream(columns, false);
    return {
      begin: async () => {},
      end: async () => {},
      write: async (rs) => this.put((await table).page(rs)),
    };
  }

  /** CSV (RFC 4180 quoting, LF line ends; csv-stringify, loaded on first use) or TSV text of rows of cells. */
  private async delimited(rows: string[][]): Promise<string> {
    if (this.opts.format === 'tsv') return rows.map(tsvLine).join('');
    const { stringify } = await import('csv-stringify/sync');
    return stringify(rows);
  }

  /** Writes to stdout and, when it says its buffer is full, waits for it to drain (backpressure). */
  private async put(text: string): Promise<void> {
    if (text === '') return;
    if (this.ctx.stdout.write(text) === false && this.ctx.stdout.drain) await this.ctx.stdout.drain();
  }

  /** Writes pieces of text to stdout in order, each after stdout's backpressure (put). */
  private async putAll(pieces: readonly string[]): Promise<void> {
    for (const p of pieces) await this.put(p);
  }

  /** Writes raw text/bytes to stdout (template bodies, resource data). */
  raw(data: string | Uint8Array): void {
    this.ctx.stdout.write(data as string);
  }

  /**
   * A success note (`Exported 12 keys.`, `Updated API key 3.`, `no keys match`): on stderr
   * only when stderr is a terminal, where a person reads it, or with --verbose; never with
   * --quiet. Off a terminal a command that worked says nothing (a cron job mails any stderr),
   * as with gh, whose notes are for a terminal only; lic asks stderr, where its notes go, so
   * `lic state export > f.yaml` at a prompt still says what it wrote.
   */
  note(message: string): void {
    if (!this.opts.quiet && (this.ctx.stderr.isTTY || this.opts.verbose)) this.ctx.stderr.write(`${message}\n`);
  }

  /**
   * Status and reports a command was run for, on stderr: `lic serve`'s start text, `log tail
   * -f` losing the service, a dry run's summary, a plan's notes; suppressed by --quiet only.
   */
  info(message: string): void {
    if (!this.opts.quiet) this.ctx.stderr.write(`${this.prose(message)}\n`);
  }

  /** A note as stderr shows it: wrapped to the terminal's width at spaces (./layout.ts) when stderr is one, else one line for logs. */
  private prose(message: string): string {
    return this.ctx.stderr.isTTY ? wrapText(message, terminalWidth(this.ctx.stderr.columns, this.ctx.env)) : message;
  }

  /** Warnings on stderr, always. */
  warn(message: string): void {
    this.ctx.stderr.write(`${this.prose(message)}\n`);
  }

  /**
   * For drawings (`log stats`' chart): a function that paints text in one of chalk's
   * foreground colors, or undefined when color is off (chalk is then not loaded).
   */
  async colorer(): Promise<((color: ForegroundColorName, s: string) => string) | undefined> {
    if (!this.opts.color) return undefined;
    const { Chalk } = await import('chalk');
    const c = new Chalk({ level: 1 });
    return (color, s) => c[color](s);
  }

  private async painter(): Promise<Painter> {
    if (!this.opts.color) return { head: (s: string) => s, tone: (_t: string | undefined, s: string) => s };
    const { Chalk } = await import('chalk');
    const c = new Chalk({ level: 1 });
    const tones: Record<string, (s: string) => string> = { ok: c.green, warn: c.yellow, bad: c.red, dim: c.dim };
    return { head: (s: string) => c.bold(s), tone: (t: string | undefined, s: string) => (t && tones[t] ? tones[t](s) : s) };
  }
}
