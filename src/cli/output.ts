/**
 * The one renderer (STYLE §3): every result goes through here. `json` prints the
 * server's body unchanged (pretty on a TTY, one line when piped); `table` is a
 * cli-table3 table on a TTY and the same columns as tab-separated text (no header,
 * no colour) when piped. Only this module knows cli-table3 and chalk.
 */
import type { Context } from './context.js';

export const OUTPUT_FORMATS = ['table', 'json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface Column<R = Record<string, unknown>> {
  header: string;
  get: (row: R) => unknown;
  /** colour hint for TTY tables */
  tone?: (row: R) => 'ok' | 'warn' | 'bad' | 'dim' | undefined;
}

export interface RenderOptions {
  format: OutputFormat;
  /** colour allowed (TTY, not NO_COLOR, not --no-color; or FORCE_COLOR) */
  color: boolean;
  quiet: boolean;
}

/** Decides colour from flags and env the usual way (https://no-color.org, FORCE_COLOR). */
export function colorEnabled(ctx: Context, flag: boolean | undefined): boolean {
  if (flag === false) return false;
  const force = ctx.env.FORCE_COLOR;
  if (force !== undefined && force !== '' && force !== '0' && force !== 'false') return true;
  if (ctx.env.NO_COLOR !== undefined && ctx.env.NO_COLOR !== '') return false;
  if (ctx.env.TERM === 'dumb') return false;
  return ctx.stdout.isTTY;
}

/** A cell as text: strings as-is, booleans yes/no, null/undefined empty, objects as JSON. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** TSV cell: tabs and line breaks would break the columns, so they become spaces / `\n`. */
const tsvCell = (s: string) => s.replace(/\t/g, ' ').replace(/\r?\n/g, '\\n');

export class Renderer {
  constructor(
    private readonly ctx: Context,
    readonly opts: RenderOptions,
  ) {}

  /** Prints the body as JSON: pretty on a TTY, one line when piped. */
  json(body: unknown): void {
    this.ctx.stdout.write(this.ctx.stdout.isTTY ? `${JSON.stringify(body, null, 2)}\n` : `${JSON.stringify(body)}\n`);
  }

  /** A list: the body as-is for json; otherwise `rows` under `columns`. */
  async list<R>(body: unknown, rows: R[], columns: Column<R>[]): Promise<void> {
    if (this.opts.format === 'json') return this.json(body);
    if (!this.ctx.stdout.isTTY) {
      let out = '';
      for (const r of rows) out += columns.map((c) => tsvCell(cellText(c.get(r)))).join('\t') + '\n';
      this.ctx.stdout.write(out);
      return;
    }
    const [{ default: Table }, paint] = await Promise.all([import('cli-table3'), this.painter()]);
    const table = new Table({
      head: columns.map((c) => paint.head(c.header)),
      style: { head: [], border: [], compact: true },
      chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
      wordWrap: false,
    });
    for (const r of rows) table.push(columns.map((c) => paint.tone(c.tone?.(r), cellText(c.get(r)))));
    this.ctx.stdout.write(`${table.toString()}\n`);
  }

  /** One record as `field  value` lines (TTY) or `field\tvalue` (piped); the body for json. */
  async record(body: unknown, fields: [string, unknown][]): Promise<void> {
    if (this.opts.format === 'json') return this.json(body);
    if (!this.ctx.stdout.isTTY) {
      this.ctx.stdout.write(fields.map(([k, v]) => `${k}\t${tsvCell(cellText(v))}`).join('\n') + '\n');
      return;
    }
    const paint = await this.painter();
    const w = Math.max(...fields.map(([k]) => k.length));
    this.ctx.stdout.write(fields.map(([k, v]) => `${paint.head(k.padEnd(w))}  ${cellText(v)}`).join('\n') + '\n');
  }

  /** Writes raw text/bytes to stdout (template bodies, resource data). */
  raw(data: string | Uint8Array): void {
    this.ctx.stdout.write(data as string);
  }

  /** Progress or notes for people, on stderr; suppressed by --quiet. */
  info(message: string): void {
    if (!this.opts.quiet) this.ctx.stderr.write(`${message}\n`);
  }

  /** Warnings on stderr, always. */
  warn(message: string): void {
    this.ctx.stderr.write(`${message}\n`);
  }

  private async painter() {
    if (!this.opts.color) return { head: (s: string) => s, tone: (_t: string | undefined, s: string) => s };
    const { Chalk } = await import('chalk');
    const c = new Chalk({ level: 1 });
    const tones: Record<string, (s: string) => string> = { ok: c.green, warn: c.yellow, bad: c.red, dim: c.dim };
    return { head: (s: string) => c.bold(s), tone: (t: string | undefined, s: string) => (t && tones[t] ? tones[t](s) : s) };
  }
}
