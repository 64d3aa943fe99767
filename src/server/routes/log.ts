import type { FastifyInstance } from 'fastify';
import type { Statement } from 'better-sqlite3';
import type { ServiceContext } from '../context.js';
import type { Db } from '../db.js';
import { badRequest } from '../errors.js';
import { compileOr400, listPage, listQuerySchema, type CountRequest, type ListParams, type ListSource } from '../list.js';
import type { FilterNode } from '../query/index.js';
import { ADMIN_ONLY, OK, idSchema, parseTimestamp } from './common.js';

/**
 * Fields of a log entry (spec LogEntry); default sort TimeStamp desc, Id desc (contract §6).
 * `version` (trigger-kept, migration 3) lets listPage cache and derive exact totals.
 */
export const logSource: ListSource = {
  from: 'log l',
  spec: {
    fields: [
      { name: 'id', column: 'l.id', type: 'int' },
      { name: 'message', column: 'l.message', type: 'string' },
      { name: 'messageTemplate', column: 'l.message_template', type: 'string' },
      { name: 'level', column: 'l.level', type: 'string' },
      { name: 'timeStamp', column: 'l.time_stamp', type: 'timestamp' },
      { name: 'exception', column: 'l.exception', type: 'string' },
      { name: 'properties', column: 'l.properties', type: 'string' },
    ],
    defaultSort: [
      { name: 'timeStamp', desc: true },
      { name: 'id', desc: true },
    ],
  },
  version: (db) => stmt(db, 'SELECT version FROM log_stats').pluck().get() as number,
};

const READ_ROLES = ['Administrator', 'LicenseManager', 'Sales'] as const;
/**
 * Rows a purge examines (and so at most deletes) per statement. better-sqlite3 is
 * synchronous, so a statement holds every other request up; readers get a turn between
 * windows. bench/results.md, 1M entries on 2 cores: ~97,000 entries/s, and a reader's
 * p50/p99 18/46 ms during the purge (2 ms idle). Smaller windows: shorter waits, slower purge.
 */
export const PURGE_BATCH = 2000;
/** The triggers of migration 3; a deleteAll drops and remakes them to truncate the log at once. */
const COUNT_TRIGGERS = new Set(['log_count_insert', 'log_count_delete', 'log_count_update']);
const HOUR = 3_600_000;

interface DateRange {
  startDate?: string;
  endDate?: string;
}

/** A time range in ms: start inclusive, end exclusive, either open (contract §6). */
export interface TimeRange {
  start?: number;
  end?: number;
}

/** Prepared statements per database, by SQL text (only fixed SQL of this file goes here). */
const statements = new WeakMap<Db, Map<string, Statement>>();
function stmt(db: Db, sql: string): Statement {
  let m = statements.get(db);
  if (!m) statements.set(db, (m = new Map()));
  let s = m.get(sql);
  if (!s) m.set(sql, (s = db.prepare(sql)));
  return s;
}

/** startDate/endDate → ms; 400 naming the parameter when one is not a time (contract §2). */
function timeRange(q: DateRange): TimeRange {
  return {
    start: q.startDate === undefined ? undefined : parseTimestamp(q.startDate, 'startDate'),
    end: q.endDate === undefined ? undefined : parseTimestamp(q.endDate, 'endDate'),
  };
}

/**
 * Exact number of log entries with start <= time_stamp < end (either side open) and, when
 * given, of one level, from the counts the triggers of migration 3 keep: whole hours are
 * summed from log_counts, only the partial hours at the two ends are counted from the
 * covering indexes (log_time, log_level_time). Cost: O(hours in range + entries of two
 * hours), not O(entries in range). Relies on time_stamp holding integer ms (migrations).
 */
export function countLogEntries(db: Db, range: TimeRange, level?: string): number {
  const { start, end } = range;
  const onLevel = level === undefined ? '' : ' AND level = ?';
  const lp = level === undefined ? [] : [level];
  if (start === undefined && end === undefined) {
    return level === undefined
      ? (stmt(db, 'SELECT entries FROM log_stats').pluck().get() as number)
      : (stmt(db, 'SELECT coalesce(sum(entries), 0) FROM log_counts WHERE level = ?').pluck().get(level) as number);
  }
  if (start !== undefined && end !== undefined && start >= end) return 0;
  const rows = (a: number, b: number) =>
    stmt(db, `SELECT count(*) FROM log WHERE time_stamp >= ? AND time_stamp < ?${onLevel}`).pluck().get(a, b, ...lp) as number;
  // whole hours: [lo, hi) in hour numbers; ±Infinity for an open side
  const lo = start === undefined ? -Infinity : Math.ceil(start / HOUR);
  const hi = end === undefined ? Infinity : Math.floor(end / HOUR);
  if (lo >= hi) return rows(start!, end!); // under two hours: count them
  let n = stmt(db, `SELECT coalesce(sum(entries), 0) FROM log_counts WHERE hour >= ? AND hour < ?${onLevel}`).pluck().get(lo, hi, ...lp) as number;
  if (start !== undefined && start < lo * HOUR) n += rows(start, lo * HOUR);
  if (end !== undefined && hi * HOUR < end) n += rows(hi * HOUR, end);
  return n;
}

/** `Level = "x"` (either way round) → x; any other filter → undefined. */
function levelEquals(f: FilterNode): string | undefined {
  if (f.kind !== 'compare' || f.op !== '=') return undefined;
  const isLevel = (n: FilterNode) => n.kind === 'field' && n.name.toLowerCase() === 'level';
  if (isLevel(f.left) && f.right.kind === 'literal' && typeof f.right.value === 'string') return f.right.value;
  if (isLevel(f.right) && f.left.kind === 'literal' && typeof f.left.value === 'string') return f.left.value;
  return undefined;
}

/** ListSource.count of the log: no filter or `Level = "x"`, over `range` → countLogEntries; else undefined. */
function countByHours(db: Db, q: CountRequest, range: TimeRange): number | undefined {
  if (!q.filter) return countLogEntries(db, range);
  const level = levelEquals(q.filter);
  return level === undefined ? undefined : countLogEntries(db, range, level);
}

/** min and max id of the entries in a time range, per (range, log version); small LRU per database. */
const idSpans = new WeakMap<Db, Map<string, { version: number; span: [number, number] | null }>>();
function idSpan(db: Db, r: TimeRange, version: number): [number, number] | null {
  let m = idSpans.get(db);
  if (!m) idSpans.set(db, (m = new Map()));
  const key = `${r.start}/${r.end}`;
  const hit = m.get(key);
  if (hit && hit.version === version) return hit.span;
  const row = stmt(db, 'SELECT min(id), max(id) FROM log WHERE time_stamp >= ? AND time_stamp < ?')
    .raw()
    .get(r.start ?? -Infinity, r.end ?? Infinity) as [number | null, number | null];
  const span: [number, number] | null = row[0] === null ? null : [row[0], row[1]!];
  m.delete(key);
  m.set(key, { version, span });
  if (m.size > 32) m.delete(m.keys().next().value!);
  return span;
}

/**
 * startDate (inclusive) / endDate (exclusive) → SQL scope over `l.time_stamp` (contract §6).
 *
 * A list sorted by Id in a range (`lic log list --all --since …` pages by `Id < N`) would
 * otherwise be planned as "all entries of the range by log_time, then sort by id" for every
 * page, O(range) each. When the range's ids are dense (the log is written in time order,
 * so they are), the scope instead bounds the id by the range's exact min and max id
 * (cached per log version) and writes the time terms as `+l.time_stamp` so SQLite walks
 * the primary key: each page then costs O(page).
 */
function rangeScope(db: Db, r: TimeRange, sortedById: boolean): { where: string; params: unknown[] } {
  const time = (col: string) => {
    const parts: string[] = [];
    const params: unknown[] = [];
    if (r.start !== undefined) (parts.push(`${col} >= ?`), params.push(r.start));
    if (r.end !== undefined) (parts.push(`${col} < ?`), params.push(r.end));
    return { parts, params };
  };
  if (r.start === undefined && r.end === undefined) return { where: '1', params: [] };
  if (sortedById) {
    const version = logSource.version!(db);
    const span = idSpan(db, r, version);
    if (span === null) return { where: '0', params: [] };
    const inRange = countLogEntries(db, r);
    if (span[1] - span[0] + 1 <= 4 * inRange) {
      // likelihood(…, 0.9) marks these bounds as loose, so where the filter has its own
      // (the key bound of the next page) SQLite walks from that one, and from these otherwise
      const t = time('+l.time_stamp');
      const ids = ['likelihood(l.id >= ?, 0.9)', 'likelihood(l.id <= ?, 0.9)'];
      return { where: [...t.parts, ...ids].join(' AND '), params: [...t.params, span[0], span[1]] };
    }
  }
  const t = time('l.time_stamp');
  return { where: t.parts.join(' AND '), params: t.params };
}

/**
 * Deletes the entries matching `filter` within the time range, window by window in
 * (time_stamp, id) order, yielding to other requests between windows. Each window is the
 * next PURGE_BATCH entries of the range (read from the log_time index) and the statement
 * deletes those of them the filter matches, so a statement never examines more than
 * PURGE_BATCH rows, whatever the filter, and the walk never rescans rows it kept.
 * Returns how many went.
 */
async function purgeRange(db: Db, r: TimeRange, filter: { where: string; params: unknown[] }): Promise<number> {
  // (time_stamp, id) > (start, -inf) is time_stamp >= start, as a bound SQLite seeks log_time with
  let last: [number, number] = [r.start ?? -Infinity, -Infinity];
  const upTo = r.end === undefined ? '' : ' AND l.time_stamp < ?';
  const upToParams = r.end === undefined ? [] : [r.end];
  const next = db
    .prepare(`SELECT l.time_stamp, l.id FROM log l WHERE (l.time_stamp, l.id) > (?, ?)${upTo} ORDER BY l.time_stamp, l.id LIMIT 1 OFFSET ${PURGE_BATCH - 1}`)
    .raw();
  const delWindow = db.prepare(
    `DELETE FROM log WHERE id IN (SELECT l.id FROM log l WHERE (l.time_stamp, l.id) > (?, ?) AND (l.time_stamp, l.id) <= (?, ?) AND (${filter.where}))`,
  );
  const delRest = db.prepare(`DELETE FROM log WHERE id IN (SELECT l.id FROM log l WHERE (l.time_stamp, l.id) > (?, ?)${upTo} AND (${filter.where}))`);
  let deleted = 0;
  for (;;) {
    const done = db.transaction(() => {
      const end = next.get(...last, ...upToParams) as [number, number] | undefined;
      if (!end) {
        deleted += delRest.run(...last, ...upToParams, ...filter.params).changes;
        return true;
      }
      deleted += delWindow.run(...last, ...end, ...filter.params).changes;
      last = end;
      return false;
    })();
    if (done) break;
    // let other requests run between windows: better-sqlite3 is synchronous
    await new Promise((res) => setImmediate(res));
  }
  // hours left empty by the purge
  stmt(db, 'DELETE FROM log_counts WHERE entries = 0').run();
  return deleted;
}

/**
 * Deletes the whole log; with `onlyIf`, only when it returns true (checked in the same
 * transaction), else returns undefined. `DELETE FROM log` with no WHERE is SQLite's
 * truncate optimisation (pages freed wholesale: 0.24 s for 1M entries against ~10 s row
 * by row, bench/results.md), which it skips when the table has triggers; so, in one
 * transaction, the count triggers are dropped, the log truncated, the counts zeroed (the
 * version moves on) and the triggers made again from their stored SQL. Any other trigger
 * on log → row by row.
 */
function deleteAllLog(db: Db, onlyIf?: () => boolean): number | undefined {
  return db.transaction(() => {
    if (onlyIf && !onlyIf()) return undefined;
    const triggers = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'log'").all() as { name: string; sql: string }[];
    if (triggers.some((t) => !COUNT_TRIGGERS.has(t.name))) return db.prepare('DELETE FROM log').run().changes;
    for (const t of triggers) db.exec(`DROP TRIGGER ${t.name}`);
    const n = db.prepare('DELETE FROM log').run().changes;
    db.exec('DELETE FROM log_counts; UPDATE log_stats SET entries = 0, version = version + 1;');
    for (const t of triggers) db.exec(t.sql);
    return n;
  })();
}

/** `GET /v1/log` (alias `/v1/logs`) and `DELETE /v1/log` (spec, Log; contract §6). */
export async function logRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  const { db } = ctx;
  const dateProps = { startDate: { type: 'string', maxLength: 64 }, endDate: { type: 'string', maxLength: 64 } } as const;

  for (const url of ['/v1/log', '/v1/logs']) {
    app.get<{ Querystring: ListParams & DateRange }>(url, {
      config: { roles: READ_ROLES },
      schema: { querystring: { type: 'object', properties: { ...listQuerySchema, ...dateProps } } },
    }, async (req) => {
      const range = timeRange(req.query);
      // compiled here too (cheap) for its sort; listPage compiles again, in the same order, so the same error wins
      const sortedById = compileOr400(logSource.spec, req.query).sort[0]!.field.name === 'id';
      const source: ListSource = { ...logSource, count: (d, q) => countByHours(d, q, range) };
      const { records, total } = listPage(db, source, req.query, rangeScope(db, range, sortedById));
      return { ...OK, logEntries: records, totalLogEntriesCount: total };
    });
  }

  app.delete<{ Querystring: DateRange & { id?: number; filter?: string; deleteAll?: boolean } }>('/v1/log', {
    config: { roles: ADMIN_ONLY },
    schema: {
      querystring: {
        type: 'object',
        properties: { id: idSchema, filter: { type: 'string', maxLength: 4096 }, deleteAll: { type: 'boolean' }, ...dateProps },
      },
    },
  }, async (req) => {
    const q = req.query;
    // an empty filter compiles to "everything": it must never stand for a criterion (contract §6)
    if (q.filter !== undefined && q.filter.trim() === '') {
      throw badRequest('filter is empty; to delete the whole log use deleteAll=true', 'filter');
    }
    let deleted = 0;
    if (q.id !== undefined) {
      deleted = db.prepare('DELETE FROM log WHERE id = ?').run(q.id).changes;
    } else if (q.filter !== undefined || q.startDate !== undefined || q.endDate !== undefined) {
      const range = timeRange(q);
      const c = compileOr400(logSource.spec, { filter: q.filter });
      // a range that holds every entry (purge --before now) is a deleteAll: truncate
      const everything = () => countLogEntries(db, range) === countLogEntries(db, {});
      deleted = (q.filter === undefined ? deleteAllLog(db, everything) : undefined) ?? (await purgeRange(db, range, c));
    } else if (q.deleteAll === true) {
      deleted = deleteAllLog(db)!;
    } else {
      throw badRequest('DELETE /v1/log needs a criterion: id, filter, startDate, endDate or deleteAll=true', 'deleteAll');
    }
    req.audit = {
      properties: { DeletedLogCount: deleted, Criteria: JSON.stringify(q) },
      note: ': purged {DeletedLogCount} log entries',
    };
    return { ...OK, deletedLogCount: deleted };
  });
}
