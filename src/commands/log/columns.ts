import type { Column } from '../../cli/output.js';
import type { LogEntry } from '../../wire.js';

const TONE: Record<string, 'bad' | 'warn' | 'dim' | undefined> = { Fatal: 'bad', Error: 'bad', Warning: 'warn', Debug: 'dim', Verbose: 'dim' };

/** Table columns of a log entry: the rendered message, never the raw properties. */
export const LOG_COLUMNS: Column<LogEntry>[] = [
  { header: 'ID', get: (e) => e.id },
  { header: 'TIME', get: (e) => e.timeStamp },
  { header: 'LEVEL', get: (e) => e.level, tone: (e) => TONE[e.level] },
  { header: 'MESSAGE', get: (e) => e.message },
];
