import type { Command } from 'commander';
import { listLog } from '../../client/endpoints.js';
import type { LogEntry } from '../../wire.js';
import { checkRange, parseCount, parseLevel, parseTake, parseTime } from '../../cli/parse.js';
import type { Cli } from '../../cli/program.js';
import type { Runtime } from '../../cli/runtime.js';
import { LOG_COLUMNS } from './columns.js';

export interface LogListOptions {
  level?: string;
  since?: string;
  until?: string;
  take?: number;
  skip?: number;
}

/** Escapes a value for a double-quoted filter string literal (contract §5). */
export function quote(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** `lic log list`: GET /v1/log, newest first; --since/--until become startDate/endDate. */
export async function runLogList(opts: LogListOptions, rt: Runtime): Promise<void> {
  checkRange(opts.since, opts.until);
  const client = await rt.client();
  const body = await listLog(client, {
    filter: opts.level ? `Level = ${quote(opts.level)}` : undefined,
    startDate: opts.since,
    endDate: opts.until,
    take: opts.take,
    skip: opts.skip,
  });
  await rt.out.list(body, (body.logEntries ?? []) as LogEntry[], LOG_COLUMNS);
}

export function registerLogList(parent: Command, cli: Cli): void {
  const time = (v: string) => parseTime(v, cli.ctx.now());
  parent
    .command('list')
    .alias('ls')
    .description('List log entries, newest first')
    .option('--level <level>', 'only this level: Verbose, Debug, Information, Warning, Error, Fatal', parseLevel)
    .option('--since <time>', 'from this time (RFC 3339, date, or 30m/24h/7d ago)', time)
    .option('--until <time>', 'before this time (same forms)', time)
    .option('--take <n>', 'page size, 0..1000 (default 100)', parseTake)
    .option('--skip <n>', 'records to skip', parseCount)
    .addHelpText('after', '\nExamples:\n  lic log list --level Warning --since 24h\n  lic log list --since 2025-01-18 --until 2025-01-19 -o json | jq .logEntries[].message')
    .action(async (o: LogListOptions, cmd: Command) => runLogList(o, cli.runtimeOf(cmd)));
}
