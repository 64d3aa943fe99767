import { cachedStatement, type Db } from './db.js';
import { scheduleIndexing } from './log/fts.js';
import { dayOf, rotateFor } from './log/parts.js';

/** Renders a Serilog message template (`{Name}` holes) with `props`; unknown holes stay as written. */
export function renderTemplate(template: string, props: Record<string, unknown>): string {
  return template.replace(/\{(\w+)\}/g, (hole, name: string) => (name in props ? String(props[name]) : hole));
}

const INSERT = 'INSERT INTO log (time_stamp, level, message, message_template, exception, properties) VALUES (?, ?, ?, ?, ?, ?)';

/**
 * Appends one log entry (contract §6): `level` a Serilog level, `props` serialised as the
 * JSON `properties` string, `message` the rendered template. Never pass a secret in props.
 * Written through the view `log` into the head partition, which a write on a new UTC day
 * starts (server/log/parts.ts); in the caller's transaction if there is one. Returns its id.
 */
export function writeLog(db: Db, at: Date, level: string, messageTemplate: string, props: Record<string, unknown>, exception = ''): number {
  const id = db.transaction(() => {
    rotateFor(db, at.getTime());
    cachedStatement(db, INSERT).run(
      at.getTime(),
      level,
      renderTemplate(messageTemplate, props),
      messageTemplate,
      exception,
      JSON.stringify(props),
    );
    return cachedStatement(db, 'SELECT last_id FROM log_stats').pluck().get() as number;
  })();
  scheduleIndexing(db);
  return id;
}

/** A log entry as stored: time stamp (ms), level, message, message template, exception, properties (a JSON string). */
export type LogRow = [timeStamp: number, level: string, message: string, messageTemplate: string, exception: string, properties: string];

/**
 * Appends entries in their order as writeLog would, a new partition for each later UTC day,
 * 100 to a statement, in one transaction; their full-text index is left to the background
 * indexer (or indexLog). For bulk loads: a dataset, bench/log-seed.mjs.
 */
export function writeLogEntries(db: Db, rows: readonly LogRow[]): void {
  const PER = 100;
  const many = cachedStatement(db, `${INSERT}${', (?, ?, ?, ?, ?, ?)'.repeat(PER - 1)}`);
  const one = cachedStatement(db, INSERT);
  db.transaction(() => {
    for (let i = 0; i < rows.length;) {
      rotateFor(db, rows[i]![0]);
      // the run of entries on the same UTC day (or earlier) as the first
      const day = dayOf(rows[i]![0]);
      let j = i + 1;
      while (j < rows.length && dayOf(rows[j]![0]) <= day) j++;
      for (; i + PER <= j; i += PER) many.run(rows.slice(i, i + PER).flat());
      for (; i < j; i++) one.run(rows[i]!);
    }
  })();
  scheduleIndexing(db);
}
