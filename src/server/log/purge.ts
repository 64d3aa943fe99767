/**
 * Purges of the log by time range and filter (`DELETE /v1/log`, contract §6): in windows that
 * let other requests run, or by truncating the log and putting the survivors back. Design
 * and figures: ./README.md.
 */
import { cachedStatement, type Db } from '../db.js';
import type { Scope } from '../list.js';
import { countLogEntries, type TimeRange } from './totals.js';

/** Rows a windowed purge examines (so at most deletes) per statement, i.e. per turn other requests wait for. */
export const PURGE_BATCH = 2000;
/** A range purge keeping at most this many entries (and a fifth of the log) truncates instead: ~0.7 s at most in one go. */
export const TRUNCATE_KEEP_MAX = 50_000;
/** The triggers of migration 3; a truncation drops and remakes them (SQLite truncates only a table without triggers). */
const COUNT_TRIGGERS = new Set(['log_count_insert', 'log_count_delete', 'log_count_update']);
/** Temporary table (this connection only) holding the survivors of a truncating purge. */
const KEPT = 'temp.lic_purge_kept';

/**
 * Deletes the entries of range `r` matching `filter` (SQL over `l`), PURGE_BATCH entries of the
 * range at a time in (time_stamp, id) order, each window its own transaction, yielding to other
 * requests between windows. Returns how many went.
 */
export async function purgeRange(db: Db, r: TimeRange, filter: Scope): Promise<number> {
  // (time_stamp, id) > (start, -inf) is time_stamp >= start, as a bound SQLite seeks log_time with
  let last: [number, number] = [r.start ?? -Infinity, -Infinity];
  const upTo = r.end === undefined ? '' : ' AND l.time_stamp < ?';
  const upToParams = r.end === undefined ? [] : [r.end];
  const next = db
    .prepare(
      `SELECT l.time_stamp, l.id FROM log l WHERE (l.time_stamp, l.id) > (?, ?)${upTo} ORDER BY l.time_stamp, l.id LIMIT 1 OFFSET ${PURGE_BATCH - 1}`,
    )
    .raw();
  const delWindow = db.prepare(
    `DELETE FROM log WHERE id IN (SELECT l.id FROM log l WHERE (l.time_stamp, l.id) > (?, ?) AND (l.time_stamp, l.id) <= (?, ?) AND (${filter.where}))`,
  );
  const delRest = db.prepare(
    `DELETE FROM log WHERE id IN (SELECT l.id FROM log l WHERE (l.time_stamp, l.id) > (?, ?)${upTo} AND (${filter.where}))`,
  );
  let deleted = 0;
  for (;;) {
    const done = db
      .transaction(() => {
        const end = next.get(...last, ...upToParams) as [number, number] | undefined;
        if (!end) {
          deleted += delRest.run(...last, ...upToParams, ...filter.params).changes;
          return true;
        }
        deleted += delWindow.run(...last, ...end, ...filter.params).changes;
        last = end;
        return false;
      })
      .immediate(); // write lock first: a read-then-write on a snapshot another connection committed past fails (SQLITE_BUSY_SNAPSHOT)
    if (done) break;
    // let other requests run between windows: better-sqlite3 is synchronous
    await new Promise((res) => setImmediate(res));
  }
  // hours left empty by the purge
  cachedStatement(db, 'DELETE FROM log_counts WHERE entries = 0').run();
  return deleted;
}

/** `"name"`: an identifier quoted for SQL. */
const quoteId = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Empties the log by truncation and puts back the entries `keep` selects (a SELECT of whole
 * log rows; none when absent), in the caller's transaction. Returns how many entries went, or
 * undefined, having changed nothing, when the log has a trigger other than the count triggers
 * (it would not fire: the caller then deletes row by row). Triggers and indexes are remade
 * from their SQL in sqlite_master; the table itself, and its AUTOINCREMENT high mark, stay.
 */
export function truncateLog(db: Db, keep?: { sql: string; params: unknown[] }): number | undefined {
  const objects = db
    .prepare(
      "SELECT type, name, sql FROM sqlite_master WHERE tbl_name = 'log' AND type IN ('trigger', 'index') AND sql IS NOT NULL ORDER BY type, name",
    )
    .all() as { type: 'trigger' | 'index'; name: string; sql: string }[];
  const triggers = objects.filter((o) => o.type === 'trigger');
  if (triggers.some((t) => !COUNT_TRIGGERS.has(t.name))) return undefined;
  if (keep) {
    db.exec(`DROP TABLE IF EXISTS ${KEPT}`);
    db.prepare(`CREATE TABLE ${KEPT} AS ${keep.sql}`).run(...keep.params);
  }
  for (const o of objects) db.exec(`DROP ${o.type.toUpperCase()} ${quoteId(o.name)}`);
  const n = db.prepare('DELETE FROM log').run().changes;
  db.exec('DELETE FROM log_counts; UPDATE log_stats SET entries = 0, version = version + 1;');
  for (const t of triggers) db.exec(t.sql);
  let kept = 0;
  if (keep) {
    // column for column: the temporary table was made from `SELECT *` of the log
    kept = db.prepare(`INSERT INTO log SELECT * FROM ${KEPT} ORDER BY id`).run().changes;
    db.exec(`DROP TABLE ${KEPT}`);
  }
  for (const o of objects) if (o.type === 'index') db.exec(o.sql);
  return n - kept;
}

/**
 * Deletes the entries of a time range by truncateLog, in one transaction, when the range leaves
 * at most TRUNCATE_KEEP_MAX entries and at most a fifth of the log (from the hour counts); else,
 * or with a foreign trigger on the log, changes nothing and returns undefined (purge in windows).
 * Returns how many entries went.
 */
export function purgeRangeByTruncation(db: Db, r: TimeRange): number | undefined {
  if (r.start !== undefined && r.end !== undefined && r.start >= r.end) return undefined; // an empty range
  return db
    .transaction(() => {
      const inRange = countLogEntries(db, r);
      const kept = countLogEntries(db, {}) - inRange;
      if (kept > TRUNCATE_KEEP_MAX || kept * 4 > inRange) return undefined;
      // the complement of start <= time_stamp < end (time_stamp is NOT NULL): two seeks of log_time
      const parts: string[] = [];
      const params: number[] = [];
      if (r.start !== undefined) (parts.push('time_stamp < ?'), params.push(r.start));
      if (r.end !== undefined) (parts.push('time_stamp >= ?'), params.push(r.end));
      return truncateLog(db, { sql: `SELECT * FROM log WHERE ${parts.join(' OR ') || '0'}`, params });
    })
    .immediate();
}
