import type { Command } from 'commander';
import type { CommandDeps } from '../../cli/deps.js';
import { UsageError } from '../../cli/errors.js';
import { describeFsError, writeFileAtomic } from '../../cli/files.js';
import { collectAfterRecordData } from '../../cli/memory.js';
import { checkRange, outputFormats, parseTime } from '../../cli/parse.js';
import type { Runtime } from '../../cli/runtime.js';
import { DAY } from '../../time.js';
import { checkPeriod, MAX_PERIOD_DAYS } from './counter.js';
import { gatherReport } from './report-data.js';

/** `log report` after parsing: the period and where the page goes. */
interface LogReportOptions {
  /** RFC 3339, inclusive */
  since: string;
  /** RFC 3339, exclusive */
  until: string;
  /** the HTML page's file; `-` for stdout */
  html?: string;
}

/**
 * `lic log report`: reads every entry of the period once (GET /v1/log page after page,
 * contract §5, §6; only the fields it needs) and writes one self-contained HTML page
 * (`--html FILE`, atomically; `-` for stdout) or, with `-o json`, the same figures as JSON
 * (LogReport). Neither, or a period over MAX_PERIOD_DAYS: UsageError (exit 2). A file that can't be written: exit 1 naming it.
 */
async function runLogReport(opts: LogReportOptions, rt: Runtime): Promise<void> {
  checkRange(opts.since, opts.until);
  checkPeriod('log report', opts.since, opts.until);
  const json = rt.out.opts.format === 'json';
  if (!opts.html && !json)
    throw new UsageError('log report writes an HTML page (--html FILE, - for stdout) or JSON (-o json); give one of them');
  if (opts.html && json) throw new UsageError('--html and -o json both choose the output; give one of them');
  const report = await gatherReport(rt, opts.since, opts.until);
  if (json) return rt.out.json(report);
  // the scan's last pages collected before the charts' libraries load, so the two peaks do not add up
  collectAfterRecordData(Number.MAX_SAFE_INTEGER);
  // the page's renderer, Observable Plot and linkedom load only here (a lazy chunk and two vendor files)
  const { renderReportHtml } = await import('./report-html.js');
  const page = renderReportHtml(report, rt.ctx.now());
  if (opts.html === '-') return rt.out.raw(page);
  try {
    await writeFileAtomic(opts.html!, page);
  } catch (e) {
    throw new Error(`--html: cannot write ${opts.html}: ${describeFsError(e)}`, { cause: e });
  }
  rt.out.note(`wrote ${opts.html}: ${report.entries.toLocaleString('en-US')} log entries, ${report.days.length} days`);
}

/** Declares `log report` with --since (default 30d), --until, --html; `run` is the seam for option tests. */
export function registerLogReport(parent: Command, deps: CommandDeps, run = runLogReport): void {
  let instant: Date | undefined;
  const at = () => (instant ??= deps.ctx.now());
  const time = (v: string) => parseTime(v, at());
  outputFormats(parent.command('report'), ['table', 'json'])
    .description('A self-contained HTML report of the log (levels per day, event types, problems, exceptions, management calls)')
    .option('--since <time>', 'from this time (RFC 3339, date, or 30m/24h/7d ago; default 30d)', time)
    .option('--until <time>', 'up to this time, exclusive (same forms; default now)', time)
    .option('--html <file>', 'write the HTML page to this file (- for stdout); it loads nothing from the network')
    .addHelpText(
      'after',
      `
The page: entries per level per day, the top event types with their trend, warnings and errors
by event type and by property value, exceptions by type, management calls by user and verb.
Every entry of the period is read once, page by page. -o json prints the same figures.
The period is at most ${MAX_PERIOD_DAYS} days (the trends count per day).

Examples:
  lic log report --html report.html
  lic log report --since 7d --html weekly.html
  lic log report --since 2026-11-01 --until 2026-12-01 -o json | jq .exceptions`,
    )
    .action(async (o: { since?: string; until?: string; html?: string }, c: Command) => {
      const now = at();
      return run(
        {
          since: o.since ?? new Date(now.getTime() - 30 * DAY).toISOString(),
          until: o.until ?? now.toISOString(),
          html: o.html,
        },
        deps.runtimeOf(c),
      );
    });
}
