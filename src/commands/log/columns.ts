import type { Column } from '../../cli/output.js';
import type { LogEntry } from '../../wire.js';

const TONE: Record<string, 'bad' | 'warn' | 'dim' | undefined> = {
  Fatal: 'bad',
  Error: 'bad',
  Warning: 'warn',
  Debug: 'dim',
  Verbose: 'dim',
};

/** Table columns of a log entry: the rendered message, never the raw properties. */
export const LOG_COLUMNS: Column<LogEntry>[] = [
  { header: 'ID', kind: 'id', get: (e) => e.id },
  { header: 'TIME', kind: 'time', get: (e) => e.timeStamp },
  { header: 'LEVEL', kind: 'label', get: (e) => e.level, tone: (e) => TONE[e.level] },
  { header: 'MESSAGE', kind: 'text', get: (e) => e.message },
];
