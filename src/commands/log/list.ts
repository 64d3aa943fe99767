import type { Command } from 'commander';
import { listLog } from '../../client/endpoints/log.js';
import type { LogEntry } from '../../wire.js';
import { LogEntrySchema } from '../../schema/log-entry.js';
import {
  addListOptions,
  containsClause,
  fieldNames,
  fieldTypesOf,
  equalsClause,
  runList,
  type ListDef,
  type ListFlags,
} from '../../cli/list/index.js';
import { checkRange, parseLevel, parseTime } from '../../cli/parse.js';
import type { Cli } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { LOG_COLUMNS } from './columns.js';

interface LogListOptions extends ListFlags {
  level?: string;
  since?: string;
  until?: string;
  /** text the rendered message contains */
  contains?: string;
}

/** Fields of a log entry with their wire types (contract §6; derived from src/schema/ LogEntrySchema): the defaults of what the service leaves out. */
const LOG_FIELD_TYPES = fieldTypesOf(LogEntrySchema);

/** Fields of a log entry (contract §6, spec LogEntry), for --fields and --sort. */
export const LOG_FIELDS = fieldNames(LOG_FIELD_TYPES);

/** The log as a list (contract §6): newest first, so --all pages by id descending. */
export const LOG_LIST: ListDef<LogEntry> = {
  what: 'log entries',
  arrayField: 'logEntries',
  totalField: 'totalLogEntriesCount',
  columns: LOG_COLUMNS,
  fields: LOG_FIELDS,
  types: LOG_FIELD_TYPES,
  keyOrder: 'desc',
};

/** The log's friendly filter flags → filter clauses (contract §5): --level, --contains. */
export function logFilters(o: { level?: string; contains?: string }): (string | undefined)[] {
  return [
    o.level ? equalsClause('Level', o.level) : undefined,
    o.contains !== undefined ? containsClause('Message', o.contains) : undefined,
  ];
}

/** `lic log list`: GET /v1/log, newest first; --since/--until become startDate/endDate. */
async function runLogList(opts: LogListOptions, rt: Runtime): Promise<void> {
  checkRange(opts.since, opts.until);
  const client = await rt.client();
  await runList(rt, {
    def: LOG_LIST,
    flags: opts,
    filters: logFilters(opts),
    fetch: (q, signal) => listLog(client, { ...q, startDate: opts.since, endDate: opts.until }, signal),
  });
}

/** Declares `log list` with --level, --since, --until, --contains and the shared list flags. */
export function registerLogList(parent: Command, cli: Cli, run = runLogList): void {
  const time = (v: string) => parseTime(v, cli.ctx.now());
  const cmd = parent
    .command('list')
    .alias('ls')
    .description('List log entries, newest first')
    .option('--level <level>', 'only this level: Verbose, Debug, Information, Warning, Error, Fatal', parseLevel)
    .option('--since <time>', 'from this time (RFC 3339, date, or 30m/24h/7d ago)', time)
    .option('--until <time>', 'before this time (same forms)', time)
    .option('--contains <text>', 'only entries whose message contains this text (exact, case-sensitive)');
  addListOptions(cmd, LOG_LIST, {
    sortExample: 'level --sort timeStamp:desc',
    whereExample: 'Level != "Information" and Message.Contains("key")',
    allNote: 'newest first by id rather than by time stamp',
  })
    .addHelpText(
      'after',
      '\nExamples:\n  lic log list --level Warning --since 24h\n  lic log list --since 2025-01-18 --until 2025-01-19 -o json | jq .logEntries[].message\n  lic log list --all --contains "api-keys" -o ndjson > audit.ndjson\n  lic log list --all --fields id,timeStamp,message -o csv > log.csv',
    )
    .action(async (o: LogListOptions, cmd: Command) => run(o, cli.runtimeOf(cmd)));
}
