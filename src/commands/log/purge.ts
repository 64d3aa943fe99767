import type { Command } from 'commander';
import { listLog, purgeLog, type LogPurgeQuery } from '../../client/endpoints/log.js';
import { UsageError } from '../../cli/errors.js';
import { normalizeEnvelope, normalTotal } from '../../cli/list/index.js';
import { checkRange, outputFormats, parseId, parseTime } from '../../cli/parse.js';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { DRY_RUN_HELP } from '../../cli/dry-run-option.js';

export interface LogPurgeOptions {
  all?: boolean;
  id?: number;
  before?: string;
  since?: string;
  until?: string;
  /** filter expression (contract §5), AND-ed with the date flags */
  where?: string;
  yes?: boolean;
}

/**
 * Flags → DELETE /v1/log query and a description of what goes (contract §6: all given
 * criteria of filter/startDate/endDate AND-ed); UsageError for none or a clash.
 * `count`, when known, goes into the description: "delete 1,234 log entries ...".
 */
export function purgeCriteria(o: LogPurgeOptions, count?: number): { query: LogPurgeQuery; what: string } {
  const ranged = Boolean(o.before || o.since || o.until || o.where !== undefined);
  const kinds = [o.all && '--all', o.id !== undefined && '--id', ranged && 'a filter or date range'].filter(Boolean);
  if (kinds.length === 0) throw new UsageError('say what to purge: --all, --id N, --before T, --since T / --until T, or --where EXPR');
  if (kinds.length > 1) throw new UsageError(`choose one of --all, --id, or the filter/date flags (got ${kinds.join(' and ')})`);
  if (o.before && o.until) throw new UsageError('--before and --until both set the end of the range; give one');
  if (o.where !== undefined && o.where.trim() === '')
    throw new UsageError('--where needs a filter expression, e.g. --where \'Level = "Debug"\'');
  const n = count === undefined ? '' : `${count.toLocaleString('en-US')} `;
  const entries = count === 1 ? 'log entry' : 'log entries';
  if (o.all) return { query: { deleteAll: true }, what: `delete ALL ${n}${entries}` };
  if (o.id !== undefined) return { query: { id: o.id }, what: `delete log entry ${o.id}` };
  const end = o.before ?? o.until;
  checkRange(o.since, end);
  const what = `delete ${n}${entries}${o.since ? ` from ${o.since}` : ''}${end ? ` before ${end}` : ''}${o.where !== undefined ? ` matching ${o.where}` : ''}`;
  return { query: { filter: o.where, startDate: o.since, endDate: end }, what };
}

/**
 * `lic log purge`: on a terminal first asks the service how many entries match
 * (GET /v1/log take=0 with the same filter and dates: totalLogEntriesCount) and says so
 * in the question; off a terminal requires --yes (no count asked). Then DELETE /v1/log;
 * prints deletedLogCount. Nothing matching: says so and deletes nothing.
 */
async function runLogPurge(opts: LogPurgeOptions, rt: Runtime): Promise<void> {
  const { query, what: plain } = purgeCriteria(opts);
  let what = plain;
  if (rt.globals.dryRun) return dryRunPurge(query, rt);
  const interactive = rt.ctx.stdin.isTTY && rt.ctx.stderr.isTTY;
  if (!opts.yes && interactive && query.id === undefined) {
    const client = await rt.client();
    const counted = await listLog(client, { filter: query.filter, startDate: query.startDate, endDate: query.endDate, take: 0 });
    // the original omits zero values (contract §1), so a missing total is 0
    const count = typeof counted.totalLogEntriesCount === 'number' ? counted.totalLogEntriesCount : 0;
    if (count === 0) {
      rt.out.note('No log entries match: nothing was deleted.');
      return;
    }
    ({ what } = purgeCriteria(opts, count)); // the same criteria, now with the count in the question
  }
  await rt.confirm(what, opts.yes);
  const client = await rt.client();
  const body = await purgeLog(client, query);
  // the original omits a zero deletedLogCount (contract §1): the documented shape has it
  const deleted = normalTotal(body.deletedLogCount);
  const shown = rt.out.opts.raw
    ? body
    : { ...normalizeEnvelope(body as unknown as Record<string, unknown>, { arrayField: 'deletedLogCount' }), deletedLogCount: deleted };
  await rt.out.record(shown, [['deletedLogCount', deleted]], { record: shown, fields: [['deletedLogCount', deleted]] });
}

/**
 * `log purge --dry-run`: counts what the criteria match now (GET /v1/log take=0, with
 * `Id = N` as the filter for --id), then lets the DELETE stop in the dry-run client and
 * adds the count to its plan as `wouldDelete`. Nothing is deleted.
 */
async function dryRunPurge(query: LogPurgeQuery, rt: Runtime): Promise<void> {
  const client = await rt.client();
  const filter = query.id !== undefined ? `Id = ${query.id}` : query.filter;
  const counted = await listLog(client, { filter, startDate: query.startDate, endDate: query.endDate, take: 0 });
  // the original omits zero values (contract §1), so a missing total is 0
  const count = typeof counted.totalLogEntriesCount === 'number' ? counted.totalLogEntriesCount : 0;
  try {
    await purgeLog(client, query);
  } catch (e) {
    if (e instanceof Error && e.name === 'DryRunStop') (e as Error & { plan: { wouldDelete?: number } }).plan.wouldDelete = count;
    throw e;
  }
}

/** Declares `log purge` with --all, --id, --before, --since/--until, --where and --yes (one kind of criterion; purgeCriteria checks). */
export function registerLogPurge(parent: Command, deps: CommandDeps, run = runLogPurge): void {
  const time = (v: string) => parseTime(v, deps.ctx.now());
  outputFormats(parent.command('purge'))
    .description('Delete log entries (Administrator; asks first, saying how many, --yes off a terminal)')
    .option('--all', 'the whole log')
    .option('--id <id>', 'one entry', parseId)
    .option('--before <time>', 'entries older than this (RFC 3339, date, or 30d ago)', time)
    .option('--since <time>', 'entries from this time', time)
    .option('--until <time>', 'entries before this time', time)
    .option('--where <expr>', 'entries matching this filter expression (contract §5); AND-ed with the date flags')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--dry-run', `${DRY_RUN_HELP}; adds wouldDelete, the number of entries matching now`)
    .addHelpText(
      'after',
      '\nExamples:\n  lic log purge --before 90d --yes\n  lic log purge --where \'Level = "Debug"\' --before 7d\n  lic log purge --all\n  lic log purge --before 90d --dry-run     # the request and wouldDelete; nothing deleted',
    )
    .action(async (o: LogPurgeOptions, cmd: Command) => run(o, deps.runtimeOf(cmd)));
}
