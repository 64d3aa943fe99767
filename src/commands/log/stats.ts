import { InvalidArgumentError, Option, type Command } from 'commander';
import { listLog } from '../../client/endpoints/log.js';
import { InterruptedError, UsageError } from '../../cli/errors.js';
import { ABORTED, unlessAborted } from '../../cli/list/abort.js';
import { allOf, equalsClause, normalTotal } from '../../cli/list/index.js';
import type { Column } from '../../cli/output.js';
import { checkRange, outputFormats, parseLevel, parseTime } from '../../cli/parse.js';
import { startProgress } from '../../cli/progress.js';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { DAY, HOUR, WEEK } from '../../time.js';
import { LOG_LEVELS, type LogLevel } from '../../wire.js';
import type { BucketCounts, BucketSize } from './stats-chart.js';

/** `log stats` after parsing: the range (RFC 3339, defaults filled in), bucket size, levels and extra filter. */
export interface LogStatsOptions {
  /** RFC 3339: the first bucket starts here */
  since: string;
  /** RFC 3339: the last bucket ends here (exclusive) */
  until: string;
  by: BucketSize;
  /** the levels to count, in LOG_LEVELS order; all six unless --level */
  levels: LogLevel[];
  /** an extra filter expression (contract §5), AND-ed with each level */
  where?: string;
}

/** The bucket sizes of --by, finest first (the order a coarser one is suggested in). */
const BUCKET_SIZES = ['hour', 'day', 'week'] as const satisfies readonly BucketSize[];

/** The most requests one run may send (buckets × levels); more is a usage error suggesting a coarser --by. */
const MAX_STATS_REQUESTS = 400;
/** Requests in flight at once: enough to hide latency, few enough not to crowd a shared service. */
const STATS_CONCURRENCY = 6;

const SIZE_MS: Record<BucketSize, number> = { hour: HOUR, day: DAY, week: WEEK };

/** `t` (ms) floored to the start of its UTC hour, UTC day or ISO week (Monday 00:00 UTC; 1970-01-01 was a Thursday). */
export function bucketFloor(t: number, by: BucketSize): number {
  if (by !== 'week') return Math.floor(t / SIZE_MS[by]) * SIZE_MS[by];
  const day = Math.floor(t / DAY);
  return (day - ((day + 3) % 7)) * DAY;
}

/** How many buckets [since, until) spans (calendar-aligned, the first and last clipped to the range); 0 for an empty range. */
export function bucketCount(since: number, until: number, by: BucketSize): number {
  if (until <= since) return 0;
  return (bucketFloor(until - 1, by) - bucketFloor(since, by)) / SIZE_MS[by] + 1;
}

/** The buckets of [since, until) as `{start, end}` in ms: UTC hours, days or ISO weeks, the first starting at `since` and the last ending at `until`. */
export function buckets(since: number, until: number, by: BucketSize): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  for (let start = since; start < until;) {
    const end = Math.min(bucketFloor(start, by) + SIZE_MS[by], until);
    out.push({ start, end });
    start = end;
  }
  return out;
}

/** `--level`: one or more levels, comma-separated, case-insensitive (parseLevel) → canonical names in LOG_LEVELS order, no repeats. */
export function parseLevels(value: string): LogLevel[] {
  const wanted = new Set(value.split(',').map((v) => parseLevel(v) as LogLevel));
  return LOG_LEVELS.filter((l) => wanted.has(l));
}

/** A stats record as printed for scripts: `start`, `end`, a count per level (lowercase name), `total`. */
type StatsRecord = Record<string, string | number>;

const toRecord = (b: BucketCounts, levels: readonly LogLevel[]): StatsRecord => {
  const rec: StatsRecord = { start: b.start, end: b.end };
  for (const l of levels) rec[l.toLowerCase()] = b.counts[l] ?? 0;
  rec.total = b.total;
  return rec;
};

/**
 * Runs `tasks` with at most `limit` in flight, in order of start; rejects with the first
 * failure (no new task starts after it). `onDone` sees each completion.
 */
async function pool<T>(tasks: readonly (() => Promise<T>)[], limit: number, onDone: () => void): Promise<T[]> {
  const results = new Array<T>(tasks.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < tasks.length) {
      const i = next++;
      try {
        results[i] = await tasks[i]!();
      } catch (e) {
        failed = true;
        throw e;
      }
      onDone();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

/**
 * `lic log stats`: log entries per level per UTC hour, day or ISO week between --since and
 * --until, each count the `totalLogEntriesCount` of a `take=0` GET /v1/log with
 * `startDate`/`endDate` the bucket and `filter` `Level = "X"` (and --where): published
 * endpoints only (contract §5, §6). At most MAX_STATS_REQUESTS requests (else UsageError,
 * exit 2), STATS_CONCURRENCY in flight, a progress bar on a terminal stderr. Prints a
 * stacked bar chart on a terminal; `-o json` `{since, until, by, levels, buckets, totals}`;
 * ndjson/csv/tsv/a piped table one record per bucket (`start, end, <level>…, total`).
 */
async function runLogStats(opts: LogStatsOptions, rt: Runtime): Promise<void> {
  checkRange(opts.since, opts.until);
  const since = Date.parse(opts.since);
  const until = Date.parse(opts.until);
  const n = bucketCount(since, until, opts.by);
  const requests = n * opts.levels.length;
  if (requests > MAX_STATS_REQUESTS) {
    const coarser = BUCKET_SIZES.slice(BUCKET_SIZES.indexOf(opts.by) + 1);
    throw new UsageError(
      `--since ${opts.since} to --until ${opts.until} by ${opts.by} is ${n.toLocaleString('en-US')} buckets × ${opts.levels.length} levels = ${requests.toLocaleString('en-US')} requests, over the limit of ${MAX_STATS_REQUESTS}: ${coarser.length ? `use --by ${coarser.join(' or --by ')}, ` : ''}a shorter range${opts.levels.length > 1 ? ', or fewer --level' : ''}`,
    );
  }
  const client = await rt.client();
  const ranges = buckets(since, until, opts.by);
  const ac = new AbortController();
  const off = rt.ctx.onInterrupt(() => ac.abort());
  const tasks = ranges.flatMap((r) =>
    opts.levels.map((level) => async () => {
      const body = await unlessAborted(
        listLog(client, {
          take: 0,
          startDate: new Date(r.start).toISOString(),
          endDate: new Date(r.end).toISOString(),
          filter: allOf([equalsClause('Level', level), opts.where]),
        }),
        ac.signal,
      );
      // a service that leaves defaults out sends no total for 0 (contract §1)
      return normalTotal((body as { totalLogEntriesCount?: unknown }).totalLogEntriesCount);
    }),
  );
  let counts: number[];
  let progress: Awaited<ReturnType<typeof startProgress>> | undefined;
  try {
    // the first count alone: a stopped or refusing service fails once, with one line of
    // retry notices, before the fan-out and the progress bar
    const first = await tasks[0]!();
    progress = await startProgress(rt.ctx, { enabled: rt.ctx.stderr.isTTY && !rt.out.opts.quiet, what: 'requests' });
    progress.setTotal(requests);
    let done = 1;
    progress.update(done);
    counts = [first, ...(await pool(tasks.slice(1), STATS_CONCURRENCY, () => progress!.update(++done)))];
    progress.done(done);
  } catch (e) {
    if (e === ABORTED) throw new InterruptedError();
    throw e;
  } finally {
    off();
    progress?.stop();
  }

  const rows: BucketCounts[] = ranges.map((r, i) => {
    const c: BucketCounts['counts'] = {};
    opts.levels.forEach((l, j) => (c[l] = counts[i * opts.levels.length + j]!));
    const total = Object.values(c).reduce((a, b) => a + b, 0);
    return { start: new Date(r.start).toISOString(), end: new Date(r.end).toISOString(), counts: c, total };
  });
  const records = rows.map((b) => toRecord(b, opts.levels));
  const totals: Record<string, number> = {};
  for (const l of opts.levels) totals[l.toLowerCase()] = rows.reduce((a, b) => a + (b.counts[l] ?? 0), 0);
  totals.total = rows.reduce((a, b) => a + b.total, 0);

  if (rt.out.opts.format === 'table' && rt.ctx.stdout.isTTY) {
    // the chart and the terminal table's width rules are lazy chunks: only a terminal needs them
    const [{ drawChart }, { terminalWidth, truncate }] = await Promise.all([import('./stats-chart.js'), import('../../cli/table.js')]);
    const width = terminalWidth(rt.ctx.stdout.columns, rt.ctx.env);
    const chart = drawChart(rows, { width, by: opts.by, levels: opts.levels, paint: await rt.out.colorer() });
    const title = `Log entries per ${opts.by} (UTC), ${shortTime(opts.since)} to ${shortTime(opts.until)}${opts.where ? `, where ${opts.where}` : ''}`;
    rt.out.raw(`${truncate(title, width)}\n${chart}`);
    return;
  }
  const columns: Column<StatsRecord>[] = Object.keys(records[0] ?? toRecord({ start: '', end: '', counts: {}, total: 0 }, opts.levels)).map(
    (k) => ({ header: k, get: (r) => r[k], kind: k === 'start' || k === 'end' ? 'time' : 'number' }),
  );
  const body = { since: opts.since, until: opts.until, by: opts.by, levels: opts.levels, buckets: records, totals };
  await rt.out.list(body, records, columns);
}

/** Declares `log stats` with --since (default 30d ago), --until (default now), --by, --level, --where; `run` is the seam for option tests. */
export function registerLogStats(parent: Command, deps: CommandDeps, run = runLogStats): void {
  // one instant for the relative --since/--until and the default --until, so `--since 7d` spans exactly 7 days
  let instant: Date | undefined;
  const at = () => (instant ??= deps.ctx.now());
  const time = (v: string) => parseTime(v, at());
  const by = (v: string): BucketSize => {
    const found = BUCKET_SIZES.find((b) => b === v.trim().toLowerCase());
    if (!found) throw new InvalidArgumentError(`Allowed choices are ${BUCKET_SIZES.join(', ')}.`);
    return found;
  };
  outputFormats(parent.command('stats'))
    .description('Count log entries per level per hour, day or week, as a chart on a terminal')
    .option('--since <time>', 'from this time (RFC 3339, date, or 30m/24h/7d ago; default 30d)', time)
    .option('--until <time>', 'up to this time, exclusive (same forms; default now)', time)
    .addOption(new Option('--by <size>', 'bucket size, in UTC (weeks start on Monday)').choices(BUCKET_SIZES).argParser(by).default('day'))
    .option('--level <levels>', `only these levels, comma-separated: ${LOG_LEVELS.join(', ')} (default all)`, parseLevels)
    .option('--where <expr>', `filter expression in the service's query language, AND-ed with each level; e.g. 'Message.Contains("401")'`)
    .addHelpText(
      'after',
      `\nEach count is one request (take=0; the list's total), so a run sends buckets × levels requests, ${STATS_CONCURRENCY} at a time, and refuses to send more than ${MAX_STATS_REQUESTS}.\n\nExamples:\n  lic log stats\n  lic log stats --since 48h --by hour --level Warning,Error\n  lic log stats --since 2026-01-01 --by week -o csv > weekly.csv\n  lic log stats --where 'Message.Contains("api-keys")' -o json | jq .totals`,
    )
    .action(async (o: { since?: string; until?: string; by: BucketSize; level?: LogLevel[]; where?: string }, c: Command) => {
      const now = at();
      return run(
        {
          since: o.since ?? new Date(now.getTime() - 30 * DAY).toISOString(),
          until: o.until ?? now.toISOString(),
          by: o.by,
          levels: o.level ?? [...LOG_LEVELS],
          where: o.where,
        },
        deps.runtimeOf(c),
      );
    });
}

/** RFC 3339 to the minute for the chart's title: `2026-11-23 10:54Z`. */
const shortTime = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')}Z`;
