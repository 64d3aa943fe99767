import { listLog } from '../../client/endpoints/log.js';
import type { LogEntry } from '../../wire.js';
import { LogEntrySchema } from '../../schema/log-entry.js';
import { containsClause, defineList, equalsClause, type ListFlags } from '../../cli/list/index.js';
import { checkRange, parseLevel, parseTime } from '../../cli/parse.js';

interface LogListOptions extends ListFlags {
  level?: string;
  since?: string;
  until?: string;
  /** text the rendered message contains */
  contains?: string;
}

const TONE: Record<string, 'bad' | 'warn' | 'dim' | undefined> = {
  Fatal: 'bad',
  Error: 'bad',
  Warning: 'warn',
  Debug: 'dim',
  Verbose: 'dim',
};

/**
 * `lic log list`: GET /v1/log (contract §6), newest first, so --all pages by id descending;
 * --since/--until become startDate/endDate. The table shows the rendered message, never
 * the raw properties.
 */
export const LOG_LIST = defineList<LogEntry, LogListOptions>({
  what: 'log entries',
  arrayField: 'logEntries',
  totalField: 'totalLogEntriesCount',
  keyOrder: 'desc',
  schema: LogEntrySchema,
  check: (o) => checkRange(o.since, o.until),
  fetch: (client, q, o, signal) => listLog(client, { ...q, startDate: o.since, endDate: o.until }, signal),
  description: 'List log entries, newest first',
  columns: [
    { header: 'ID', kind: 'id', get: (e) => e.id },
    { header: 'TIME', kind: 'time', get: (e) => e.timeStamp },
    { header: 'LEVEL', kind: 'label', get: (e) => e.level, tone: (e) => TONE[e.level] },
    { header: 'MESSAGE', kind: 'text', get: (e) => e.message },
  ],
  flags: {
    level: {
      flag: '--level <level>',
      help: 'only this level: Verbose, Debug, Information, Warning, Error, Fatal',
      parse: parseLevel,
      filter: (v) => v && equalsClause('Level', v),
    },
    since: { flag: '--since <time>', help: 'from this time (RFC 3339, date, or 30m/24h/7d ago)', parse: parseTime },
    until: { flag: '--until <time>', help: 'before this time (same forms)', parse: parseTime },
    contains: {
      flag: '--contains <text>',
      help: 'only entries whose message contains this text (exact, case-sensitive)',
      filter: (v) => containsClause('Message', v),
    },
  },
  help: {
    sortExample: 'level --sort timeStamp:desc',
    whereExample: 'Level != "Information" and Message.Contains("key")',
    allNote: 'newest first by id rather than by time stamp',
  },
  examples: [
    'lic log list --level Warning --since 24h',
    'lic log list --since 2025-01-18 --until 2025-01-19 -o json | jq .logEntries[].message',
    'lic log list --all --contains "api-keys" -o ndjson > audit.ndjson',
    'lic log list --all --fields id,timeStamp,message -o csv > log.csv',
  ],
});

export const registerLogList = LOG_LIST.register;
