import type { FastifyInstance } from 'fastify';
import { audited, writeAudit, type AuditFacts } from '../audit.js';
import type { ServiceContext } from '../context.js';
import { cachedStatement, type Db } from '../db.js';
import { badRequest } from '../errors.js';
import { compileOr400, listPage, listQuerySchema, type CountRequest, type ListParams, type ListSource } from '../list.js';
import type { FilterNode } from '../query/index.js';
import { envelopeProperties, listResponse, recordSchema } from '../openapi.js';
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
  version: (db) => cachedStatement(db, 'SELECT version FROM log_stats').pluck().get() as number,
};

const READ_ROLES = ['Administrator', 'LicenseManager', 'Sales'] as const;
/**
 * Rows a purge examines (and so at most deletes) per statement. better-sqlite3 is
 * synchronous, so a statement holds every other request up; readers get a turn between
 * windows. bench/results.md, 1M entries on 2 cores: ~107,000 entries/s, and a reader's
 * p50/p99 17/43 ms during the purge (2 ms idle). Smaller windows: shorter waits, slower purge.
 */
export const PURGE_BATCH = 2000;
/**
 * A date-range purge (no filter) that keeps at most this many entries, and at most a fifth
 * of the log, truncates the log and puts the survivors back, in one transaction
 * (purgeRangeByTruncation), instead of deleting row by row in windows. That one transaction
 * holds other requests up for its whole length: ~0.2 s per million entries truncated plus
 * ~10 µs per survivor (bench/results.md, 1M entries on 2 cores: 0.21 s leaving 1,525, 0.55 s
 * leaving 33,334, against 8.2 s in windows), so this bounds the wait at about 0.7 s; a purge
 * that keeps more goes in windows (~9 µs per entry deleted, never a long wait).
 */
export const TRUNCATE_KEEP_MAX = 50_000;
/** The triggers of migration 3; a truncation drops and remakes them (SQLite truncates only a table without triggers). */
const COUNT_TRIGGERS = new Set(['log_count_insert', 'log_count_delete', 'log_count_update']);
/** Temporary table (this connection only) holding the survivors of a truncating purge. */
const KEPT = 'temp.lic_purge_kept';
const HOUR = 3_600_000;

interface DateRange {
  startDate?: string;
  endDate?: string;
}

/** A time range in ms: start inclusive, end exclusive, either open (contract §6). */
interface TimeRange {
  start?: number;
  end?: number;
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
function countLogEntries(db: Db, range: TimeRange, level?: string): number {
  const { start, end } = range;
  const onLevel = level === undefined ? '' : ' AND level = ?';
  const lp = level === undefined ? [] : [level];
  if (start === undefined && end === undefined) {
    return level === undefined
      ? (cachedStatement(db, 'SELECT entries FROM log_stats').pluck().get() as number)
      : (cachedStatement(db, 'SELECT coalesce(sum(entries), 0) FROM log_counts WHERE level = ?').pluck().get(level) as number);
  }
  if (start !== undefined && end !== undefined && start >= end) return 0;
  const rows = (a: number, b: number) =>
    cachedStatement(db, `SELECT count(*) FROM log WHERE time_stamp >= ? AND time_stamp < ?${onLevel}`)
      .pluck()
      .get(a, b, ...lp) as number;
  // whole hours: [lo, hi) in hour numbers; ±Infinity for an open side
  const lo = start === undefined ? -Infinity : Math.ceil(start / HOUR);
  const hi = end === undefined ? Infinity : Math.floor(end / HOUR);
  if (lo >= hi) return rows(start!, end!); // under two hours: count them
  let n = cachedStatement(db, `SELECT coalesce(sum(entries), 0) FROM log_counts WHERE hour >= ? AND hour < ?${onLevel}`)
    .pluck()
    .get(lo, hi, ...lp) as number;
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
  const row = cachedStatement(db, 'SELECT min(id), max(id) FROM log WHERE time_stamp >= ? AND time_stamp < ?')
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
 * log rows; none when absent), in the caller's transaction. Returns how many entries went,
 * or undefined, having changed nothing, when the log has a trigger other than the count
 * triggers (they would not fire: the caller then deletes row by row).
 *
 * `DELETE FROM log` with no WHERE is SQLite's truncate optimisation (pages freed wholesale:
 * 0.22 s for 1M entries against ~9 s row by row, bench/results.md), which it skips when the
 * table has triggers. So: the survivors are copied to a temporary table; the count triggers
 * and the log's indexes are dropped; the log truncated; the counts zeroed (the version
 * moves on, so cached totals and id spans go stale); the triggers made again; the
 * survivors inserted back with their own ids (the triggers count them, so log_stats and
 * log_counts are exact by the migration's own rule); the indexes built again. Triggers and
 * indexes are remade from their SQL in sqlite_master, so whatever a migration declared is
 * what comes back; the table itself is never dropped, so its definition, and its row in
 * sqlite_sequence (AUTOINCREMENT: a new entry's id stays above every id ever issued), stay.
 */
function truncateLog(db: Db, keep?: { sql: string; params: unknown[] }): number | undefined {
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
 * Deletes the entries of a time range by truncating the log and putting the rest back
 * (truncateLog), in one transaction, so a reader (or another connection, WAL) sees the log
 * before or after, never between. Only when the range leaves little: at most
 * TRUNCATE_KEEP_MAX entries and at most a fifth of the log (counted from the hour counts);
 * else, or with a trigger on the log other than the count triggers, it does nothing and
 * returns undefined (the caller purges in windows). Returns how many entries went.
 */
function purgeRangeByTruncation(db: Db, r: TimeRange): number | undefined {
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

/** `GET /v1/log` (alias `/v1/logs`) and `DELETE /v1/log` (spec, Log; contract §6). */
export async function logRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  const { db } = ctx;
  const dateProps = { startDate: { type: 'string', maxLength: 64 }, endDate: { type: 'string', maxLength: 64 } } as const;

  for (const url of ['/v1/log', '/v1/logs']) {
    app.get<{ Querystring: ListParams & DateRange }>(
      url,
      {
        config: { roles: READ_ROLES },
        schema: {
          querystring: { type: 'object', properties: { ...listQuerySchema, ...dateProps } },
          response: {
            200: listResponse(
              'logEntries',
              'totalLogEntriesCount',
              recordSchema('LogEntry', logSource.spec.fields, {
                level: { type: 'string', enum: ['Verbose', 'Debug', 'Information', 'Warning', 'Error', 'Fatal'] },
                properties: 'a JSON object serialised as a string',
                messageTemplate: 'the Serilog message template of message',
              }),
            ),
          },
        },
      },
      async (req) => {
        const range = timeRange(req.query);
        // compiled here too (cheap) for its sort; listPage compiles again, in the same order, so the same error wins
        const sortedById = compileOr400(logSource.spec, req.query).sort[0]!.field.name === 'id';
        const source: ListSource = { ...logSource, count: (d, q) => countByHours(d, q, range) };
        const { records, total } = listPage(db, source, req.query, rangeScope(db, range, sortedById));
        return { ...OK, logEntries: records, totalLogEntriesCount: total };
      },
    );
  }

  app.delete<{ Querystring: DateRange & { id?: number; filter?: string; deleteAll?: boolean } }>(
    '/v1/log',
    {
      config: { roles: ADMIN_ONLY },
      schema: {
        querystring: {
          type: 'object',
          properties: { id: idSchema, filter: { type: 'string', maxLength: 4096 }, deleteAll: { type: 'boolean' }, ...dateProps },
        },
        response: { 200: { type: 'object', properties: { ...envelopeProperties, deletedLogCount: { type: 'integer', minimum: 0 } } } },
      },
    },
    async (req) => {
      const q = req.query;
      // an empty filter compiles to "everything": it must never stand for a criterion (contract §6)
      if (q.filter !== undefined && q.filter.trim() === '') {
        throw badRequest('filter is empty; to delete the whole log use deleteAll=true', 'filter');
      }
      const criteria = JSON.stringify(q);
      const purged = (deleted: number): AuditFacts => ({
        properties: { DeletedLogCount: deleted, Criteria: criteria },
        note: ': purged {DeletedLogCount} log entries',
      });
      const reply = (deleted: number) => ({ ...OK, deletedLogCount: deleted });
      // each purge that runs in one transaction writes its audit entry in that transaction (audited)
      if (q.id !== undefined) {
        return audited(ctx, req, () => {
          const deleted = db.prepare('DELETE FROM log WHERE id = ?').run(q.id).changes;
          req.audit = purged(deleted);
          return reply(deleted);
        });
      }
      if (q.filter !== undefined || q.startDate !== undefined || q.endDate !== undefined) {
        const range = timeRange(q);
        const c = compileOr400(logSource.spec, { filter: q.filter });
        // a range alone that leaves little (purge --before now, or all but the newest day): truncate, put the rest back
        if (q.filter === undefined) {
          const deleted = db
            .transaction(() => {
              const n = purgeRangeByTruncation(db, range);
              if (n !== undefined) writeAudit(ctx, req, purged(n));
              return n;
            })
            .immediate();
          if (deleted !== undefined) return reply(deleted);
        }
        // In windows, each its own transaction, so other requests get turns: an entry before it
        // starts (criteria, how many will go) and one after (how many went), so a purge cut off
        // midway (a crash, SIGKILL) still leaves a trace of what it was doing.
        const source: ListSource = { ...logSource, count: (d, cq) => countByHours(d, cq, range) };
        // what is in the log now: neither the entry below nor what others write meanwhile is the purge's to delete
        const lastId = (cachedStatement(db, 'SELECT max(id) FROM log').pluck().get() as number | null) ?? 0;
        const willGo = listPage(db, source, { filter: q.filter, take: 0 }, rangeScope(db, range, false)).total;
        writeAudit(ctx, req, {
          properties: { WillDelete: willGo, Criteria: criteria },
          note: ': purging {WillDelete} log entries in windows',
        });
        const deleted = await purgeRange(db, range, { where: `(${c.where}) AND l.id <= ?`, params: [...c.params, lastId] });
        writeAudit(ctx, req, purged(deleted));
        return reply(deleted);
      }
      if (q.deleteAll === true) {
        return audited(ctx, req, () => {
          const deleted = truncateLog(db) ?? db.prepare('DELETE FROM log').run().changes;
          req.audit = purged(deleted);
          return reply(deleted);
        });
      }
      throw badRequest('DELETE /v1/log needs a criterion: id, filter, startDate, endDate or deleteAll=true', 'deleteAll');
    },
  );
}
