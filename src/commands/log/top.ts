import { InvalidArgumentError, type Command } from 'commander';
import type { CommandDeps } from '../../cli/deps.js';
import { parseFilterValue } from '../../cli/list/flags.js';
import type { Column } from '../../cli/output.js';
import { checkRange, outputFormats, parseCount, parseTime } from '../../cli/parse.js';
import type { Runtime } from '../../cli/runtime.js';
import { DAY } from '../../time.js';
import { LOG_LEVELS, type LogLevel } from '../../wire.js';
import { checkPeriod, daySpan, MAX_PERIOD_DAYS, sparkline, ValueCounter, type Counted } from './counter.js';
import { ENTRY_FIELDS, EntryReader, fieldsNeeded } from './entry-values.js';
import { scanLog, type LogSelection } from './scan.js';
import { parseLevels } from './stats.js';

/** `log top` after parsing: the fields to group by, the selection, how many values to print. */
interface LogTopOptions extends LogSelection {
  /** `template`, `level`, `exception`, `message` or property names; several group by their combination */
  fields: string[];
  limit: number;
}

/** One row of `log top`: the value of each field, then the figures. */
type TopRecord = Record<string, string | number | number[]>;

/** Between the parts of a combination's key: a character no log value carries. */
const SEP = '\u001f';

/** Terminal columns from which the table shows FIRST as well as LAST. */
const WIDE_TABLE = 100;

const NAME = /^[A-Za-z_][A-Za-z0-9_.]*$/;

/**
 * FIELD: one or more comma-separated names, each `template`, `level`, `exception`,
 * `message` (any case) or a property name (as Serilog writes them: letters, digits, `_`),
 * no repeats. Throws InvalidArgumentError (exit 2).
 */
export function parseTopFields(value: string): string[] {
  const names = value.split(',').map((s) => s.trim());
  const out: string[] = [];
  for (const n of names) {
    if (!NAME.test(n)) {
      throw new InvalidArgumentError(
        `expected ${ENTRY_FIELDS.join(', ')} or a property name (LicenseId, CustomerCode, …), comma-separated; got "${n}".`,
      );
    }
    const canonical = (ENTRY_FIELDS as readonly string[]).find((f) => f === n.toLowerCase()) ?? n;
    if (out.some((o) => o.toLowerCase() === canonical.toLowerCase())) throw new InvalidArgumentError(`field "${n}" is named twice.`);
    out.push(canonical);
  }
  return out;
}

/** The result of a count: what was selected and the top values. */
interface TopResult {
  entries: number;
  counted: number;
  distinct: number;
  /** 0 while every count is exact; else the most a count may be low by (ValueCounter) */
  countsLowBy: number;
  top: Counted[];
}

/**
 * Counts the values of `fields` (joined, SEP) over the entries of the selection, in one
 * streamed pass (scanLog). Entries without a value for every field are counted in
 * `entries` only.
 */
async function countTop(
  rt: Runtime,
  opts: LogTopOptions,
  span = daySpan(Date.parse(opts.since), Date.parse(opts.until)),
): Promise<TopResult> {
  const reader = new EntryReader();
  const counter = new ValueCounter(span);
  let entries = 0;
  await scanLog(rt, opts, fieldsNeeded(opts.fields), (e) => {
    entries++;
    const parts: string[] = [];
    for (const f of opts.fields) {
      const v = reader.value(e, f);
      if (v === undefined) return;
      parts.push(v);
    }
    const t = Date.parse(String(e.timeStamp));
    counter.add(parts.join(SEP), Number.isFinite(t) ? t : NaN);
  });
  return { entries, counted: counter.total, distinct: counter.size, countsLowBy: counter.floor, top: counter.top(opts.limit) };
}

const iso = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString() : '');

/**
 * `lic log top FIELD`: the most frequent values of FIELD among the entries --since/--until,
 * --level, --where and --template select (GET /v1/log page after page, contract §5, §6),
 * with count, share of the entries selected, first and last time and entries per UTC day.
 * A table with a sparkline on a terminal; `-o json` `{fields, since, until, days, entries,
 * counted, distinct, exact, values}`; ndjson/csv/tsv one record per value. A period over
 * MAX_PERIOD_DAYS: UsageError (exit 2).
 */
async function runLogTop(opts: LogTopOptions, rt: Runtime): Promise<void> {
  checkRange(opts.since, opts.until);
  checkPeriod('log top', opts.since, opts.until);
  const span = daySpan(Date.parse(opts.since), Date.parse(opts.until));
  const result = await countTop(rt, opts, span);
  const share = (n: number) => (result.entries ? Math.round((n / result.entries) * 10000) / 10000 : 0);
  const records: TopRecord[] = result.top.map((c) => {
    const parts = c.value.split(SEP);
    const rec: TopRecord = {};
    opts.fields.forEach((f, i) => (rec[f] = parts[i]!));
    Object.assign(rec, { count: c.count, share: share(c.count), first: iso(c.first), last: iso(c.last), days: [...c.days] });
    return rec;
  });
  const format = rt.out.opts.format;
  const terminal = format === 'table' && rt.ctx.stdout.isTTY;
  // a terminal narrower than WIDE_TABLE leaves FIRST out, so the values keep room to be read
  let first = true;
  if (terminal && !rt.out.opts.wide) {
    const { terminalWidth } = await import('../../cli/table.js');
    first = terminalWidth(rt.ctx.stdout.columns, rt.ctx.env) >= WIDE_TABLE;
  }
  const columns: Column<TopRecord>[] = [
    ...opts.fields.map((f): Column<TopRecord> => ({
      header: terminal ? f.toUpperCase() : f,
      get: (r) => r[f],
      kind: f === 'level' ? 'label' : f === 'template' || f === 'message' ? 'text' : 'name',
      priority: 3,
    })),
    { header: terminal ? 'COUNT' : 'count', get: (r) => r.count, kind: 'number', priority: 3 },
    {
      header: terminal ? 'SHARE' : 'share',
      get: (r) => (terminal ? `${((r.share as number) * 100).toFixed(1)}%` : r.share),
      kind: 'number',
      priority: 1,
    },
    ...(first ? [{ header: terminal ? 'FIRST' : 'first', get: (r: TopRecord) => r.first, kind: 'time' as const, priority: -1 }] : []),
    { header: terminal ? 'LAST' : 'last', get: (r) => r.last, kind: 'time', priority: 0 },
    {
      header: terminal ? `TREND (${span.count}d)` : 'days',
      get: (r) => (terminal ? sparkline(r.days as number[]) : (r.days as number[]).join(' ')),
      kind: 'code',
      priority: 2,
    },
  ];
  const body = {
    fields: opts.fields,
    since: opts.since,
    until: opts.until,
    days: Array.from({ length: span.count }, (_, i) => iso(span.start + i * DAY).slice(0, 10)),
    entries: result.entries,
    counted: result.counted,
    distinct: result.distinct,
    exact: result.countsLowBy === 0,
    ...(result.countsLowBy ? { countsLowBy: result.countsLowBy } : {}),
    values: records,
  };
  await rt.out.list(body, records, columns);
  const what = opts.fields.join(', ');
  if (result.countsLowBy) {
    rt.out.warn(
      `${what} has more distinct values than are kept in memory: a count may be low by up to ${result.countsLowBy.toLocaleString('en-US')} (values seen more often than that are all listed)`,
    );
  }
  // a success note (Renderer.note: a terminal or -v only)
  const n = (x: number) => x.toLocaleString('en-US');
  const without = result.entries - result.counted;
  rt.out.note(
    result.entries === 0
      ? 'no log entries match'
      : `${n(Math.min(opts.limit, result.distinct))} of ${n(result.distinct)} values of ${what} in ${n(result.entries)} entries${without ? ` (${n(without)} without ${what})` : ''}; share is of all ${n(result.entries)}`,
  );
}

/** Declares `log top FIELD` with --since (default 7d), --until, --level, --where, --template, --limit; `run` is the seam for option tests. */
export function registerLogTop(parent: Command, deps: CommandDeps, run = runLogTop): void {
  let instant: Date | undefined;
  const at = () => (instant ??= deps.ctx.now());
  const time = (v: string) => parseTime(v, at());
  outputFormats(parent.command('top'))
    .argument(
      '<field>',
      'template, level, exception, message, or a property name (LicenseId, …); comma-separated: their combination',
      parseTopFields,
    )
    .description('The most frequent values of a field (event type, level, exception, property) with counts and trend')
    .option('--since <time>', 'from this time (RFC 3339, date, or 30m/24h/7d ago; default 7d)', time)
    .option('--until <time>', 'up to this time, exclusive (same forms; default now)', time)
    .option('--level <levels>', `only these levels, comma-separated: ${LOG_LEVELS.join(', ')}`, parseLevels)
    .option('--where <expr>', `filter expression in the service's query language; e.g. 'Message.Contains("LIC-")'`)
    .option(
      '--template <text>',
      "only entries of this message template (event type); * matches any text, e.g. 'Activation refused*'",
      parseFilterValue,
    )
    .option('--limit <n>', 'this many values, most frequent first (default 10)', parseCount)
    .addHelpText(
      'after',
      `
A property is read from the entry's properties (JSON, or Serilog's XML), else from its message
matched against its message template. exception groups by the exception's type. The entries are
read page by page (only the fields needed); share is of all entries selected. The period is
at most ${MAX_PERIOD_DAYS} days (the trend counts per day).

Examples:
  lic log top template --since 30d
  lic log top LicenseId --template 'Activation refused*'
  lic log top Reason,CustomerCode --level Error
  lic log top exception --since 30d -o csv > exceptions.csv`,
    )
    .action(
      async (
        fields: string[],
        o: { since?: string; until?: string; level?: LogLevel[]; where?: string; template?: string; limit?: number },
        c: Command,
      ) => {
        const now = at();
        return run(
          {
            fields,
            since: o.since ?? new Date(now.getTime() - 7 * DAY).toISOString(),
            until: o.until ?? now.toISOString(),
            levels: o.level,
            where: o.where,
            template: o.template,
            limit: o.limit ?? 10,
          },
          deps.runtimeOf(c),
        );
      },
    );
}
