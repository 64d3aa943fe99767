import type { Command } from 'commander';
import { purgeLog, type LogPurgeQuery } from '../../client/endpoints.js';
import { UsageError } from '../../cli/errors.js';
import { checkRange, parseId, parseTime } from '../../cli/parse.js';
import type { Cli } from '../../cli/program.js';
import type { Runtime } from '../../cli/runtime.js';

export interface LogPurgeOptions {
  all?: boolean;
  id?: number;
  before?: string;
  since?: string;
  until?: string;
  yes?: boolean;
}

/** Flags → DELETE /v1/log query and a description of what goes; UsageError for none or a clash. */
export function purgeCriteria(o: LogPurgeOptions): { query: LogPurgeQuery; what: string } {
  const kinds = [o.all && '--all', o.id !== undefined && '--id', (o.before || o.since || o.until) && 'a date range'].filter(Boolean);
  if (kinds.length === 0) throw new UsageError('say what to purge: --all, --id N, --before T, or --since T / --until T');
  if (kinds.length > 1) throw new UsageError(`choose one of --all, --id, or the date flags (got ${kinds.join(' and ')})`);
  if (o.before && o.until) throw new UsageError('--before and --until both set the end of the range; give one');
  if (o.all) return { query: { deleteAll: true }, what: 'delete ALL log entries' };
  if (o.id !== undefined) return { query: { id: o.id }, what: `delete log entry ${o.id}` };
  const end = o.before ?? o.until;
  checkRange(o.since, end);
  const what = `delete log entries${o.since ? ` from ${o.since}` : ''}${end ? ` before ${end}` : ''}`;
  return { query: { startDate: o.since, endDate: end }, what };
}

/** `lic log purge`: confirms, then DELETE /v1/log; prints deletedLogCount. */
export async function runLogPurge(opts: LogPurgeOptions, rt: Runtime): Promise<void> {
  const { query, what } = purgeCriteria(opts);
  await rt.confirm(what, opts.yes);
  const client = await rt.client();
  const body = await purgeLog(client, query);
  await rt.out.record(body, [['deletedLogCount', body.deletedLogCount ?? 0]]);
}

export function registerLogPurge(parent: Command, cli: Cli): void {
  const time = (v: string) => parseTime(v, cli.ctx.now());
  parent
    .command('purge')
    .description('Delete log entries (Administrator; asks first, --yes off a terminal)')
    .option('--all', 'the whole log')
    .option('--id <id>', 'one entry', parseId)
    .option('--before <time>', 'entries older than this (RFC 3339, date, or 30d ago)', time)
    .option('--since <time>', 'entries from this time', time)
    .option('--until <time>', 'entries before this time', time)
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText('after', '\nExamples:\n  lic log purge --before 90d --yes\n  lic log purge --all')
    .action(async (o: LogPurgeOptions, cmd: Command) => runLogPurge(o, cli.runtimeOf(cmd)));
}
