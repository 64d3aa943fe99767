/**
 * Purges of the log by time range and filter (`DELETE /v1/log`, contract §6): whole
 * partitions inside the range taken out at once and their tables dropped; in a partition
 * only partly inside, the entries deleted in windows that let other requests run, or the
 * partition replaced by a copy of its survivors. Design and figures: ./README.md.
 */
import { cachedStatement, type Db } from '../db.js';
import { startDbWorker } from '../db-worker.js';
import { lockWanted } from '../lock-wanted.js';
import type { Scope } from '../list.js';
import { holdIndexing, scheduleIndexing } from './fts.js';
import {
  LOG_COLUMNS,
  addPartition,
  armWhere,
  ftsTable,
  logParts,
  partBounds,
  partTable,
  partsIn,
  partsInfo,
  rebuildView,
} from './parts.js';
import { countLogEntries, type TimeRange } from './totals.js';

/** Rows a windowed purge examines (so at most deletes) per statement, i.e. per turn other requests wait for. */
export const PURGE_BATCH = 2000;
/** A partition keeping at most this many entries of a range purge (and a fifth of what goes) is replaced by a copy of them instead (splitPart): a copy of ~50,000 entries at most in one go. */
export const TRUNCATE_KEEP_MAX = 50_000;

/** Where a range purge (no filter) finds its entries: partitions wholly inside the range, and those partly inside. */
export interface RangePlan {
  whole: number[];
  partial: number[];
}

/**
 * The partitions a purge of [start, end) that began when `lastId` was the last id issued
 * touches, from their time bounds (those kept by the triggers, else its entries' own) and id
 * bounds: a partition is whole when all its entries are in the range and none came after the
 * purge began (contract §6: only entries that existed when it began go); one whose entries
 * all came after is left alone. Call it holding the write lock, so the plan is the log's.
 */
export function planRange(db: Db, r: TimeRange, lastId: number): RangePlan {
  const plan: RangePlan = { whole: [], partial: [] };
  const inside = (b: [number, number]) => (r.start === undefined || b[0] >= r.start) && (r.end === undefined || b[1] < r.end);
  const info = partsInfo(db);
  for (const k of partsIn(db, r)) {
    // id bounds are never narrowed: no entry of k has an id outside them
    const ids = info.get(k)?.ids ?? null;
    if (ids && ids[0] > lastId) continue;
    const old = ids === null || ids[1] <= lastId;
    if (old && inside(partBounds(db, k)!)) {
      plan.whole.push(k);
      continue;
    }
    // the kept bounds are never narrowed: its entries' own may be inside, or outside, the range
    const t = partTable(k);
    const [lo, hi] = cachedStatement(
      db,
      `SELECT (SELECT min(time_stamp) FROM ${t} WHERE id <= ?), (SELECT max(time_stamp) FROM ${t} WHERE id <= ?)`,
    )
      .raw()
      .get(lastId, lastId) as [number | null, number | null];
    if (lo === null || (r.start !== undefined && hi! < r.start) || (r.end !== undefined && lo >= r.end)) continue;
    (old && inside([lo, hi!]) ? plan.whole : plan.partial).push(k);
  }
  return plan;
}

/**
 * Takes partitions `parts` out of the log, in the caller's transaction: their counts and
 * catalog rows go, the view no longer reads them, their tables are listed for dropDetached.
 * A new head is opened first when the head is among them. Returns how many entries went
 * (from the counts, which the triggers keep exact).
 */
export function detachParts(db: Db, parts: readonly number[]): number {
  if (parts.length === 0) return 0;
  const head = cachedStatement(db, 'SELECT part, opened FROM log_parts ORDER BY part DESC LIMIT 1').get() as {
    part: number;
    opened: number | null;
  };
  if (parts.includes(head.part)) addPartition(db, head.part + 1, head.opened);
  let n = 0;
  for (const k of parts) {
    const entries = cachedStatement(db, 'SELECT coalesce(sum(entries), 0) FROM log_counts WHERE part = ?').pluck().get(k) as number;
    cachedStatement(db, 'DELETE FROM log_counts WHERE part = ?').run(k);
    cachedStatement(db, 'UPDATE log_stats SET entries = entries - ?, version = version + 1').run(entries);
    cachedStatement(db, 'DELETE FROM log_parts WHERE part = ?').run(k);
    cachedStatement(db, 'INSERT OR IGNORE INTO log_drops (name) VALUES (?), (?)').run(ftsTable(k), partTable(k));
    n += entries;
  }
  rebuildView(db);
  return n;
}

/** Drops the tables of one partition taken out (its index, then its table), in one transaction; false when none is left. */
function dropOneDetached(db: Db): boolean {
  return db
    .transaction(() => {
      const name = cachedStatement(db, 'SELECT name FROM log_drops ORDER BY name LIMIT 1').pluck().get() as string | undefined;
      if (name === undefined) return false;
      const table = name.replace(/_fts$/, '');
      for (const t of [`${table}_fts`, table]) {
        db.exec(`DROP TABLE IF EXISTS "${t}"`);
        cachedStatement(db, 'DELETE FROM log_drops WHERE name = ?').run(t);
      }
      return true;
    })
    .immediate();
}

/**
 * The same as dropOneDetached until none is left, a table at a time, in a worker thread on a
 * connection of its own: the service's connection reads on meanwhile (WAL), so a drop holds
 * up no reader, only a writer for the length of one table's drop. Source text: it runs in the
 * worker (../db-worker.ts).
 */
const DROP_WORKER = `
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
const next = db.prepare('SELECT name FROM log_drops ORDER BY name DESC LIMIT 1').pluck();
const done = db.prepare('DELETE FROM log_drops WHERE name = ?');
// one table a transaction (a partition's index, then its table), the longest a writer waits
const one = db.transaction(() => {
  const name = next.get();
  if (name === undefined) return false;
  db.exec('DROP TABLE IF EXISTS "' + name + '"');
  done.run(name);
  return true;
});
// after each, the service's writes waiting for the lock go first (they retry now and then:
// the worker waits while any is waiting, 2 s at most), then a pause a quarter as long as the
// drop took, for writes about to come
const wanted = workerData.wanted;
const pause = new Int32Array(new SharedArrayBuffer(4));
for (;;) {
  const t0 = Date.now();
  if (!one.immediate()) break;
  for (let waited = 0; Atomics.load(wanted, 0) > 0 && waited < 2000; waited += 5) Atomics.wait(pause, 0, 0, 5);
  Atomics.wait(pause, 0, 0, Math.max(5, (Date.now() - t0) / 4));
}
db.close();
parentPort.postMessage('done');`;

/**
 * Drops the tables of partitions taken out of the log (detachParts), one partition (here) or
 * one table (in the worker) per transaction. SQLite frees a table's pages without reading its rows one by one (~0.3 µs per
 * entry measured, indexes included), but a partition of a big log still takes a while: a file
 * database is dropped from in a worker thread (readers are not held up); in memory, or should
 * the worker fail, here, letting other requests run between partitions. Never rejects.
 */
async function dropDetached(db: Db): Promise<void> {
  if (!db.open || cachedStatement(db, 'SELECT NOT EXISTS (SELECT 1 FROM log_drops)').pluck().get() === 1) return;
  if (!db.memory) {
    try {
      const worker = startDbWorker(DROP_WORKER, { file: db.name, wanted: lockWanted(db) });
      // a stop does not wait for it: what is left is dropped at the next start
      worker.unref();
      const done = new Promise<void>((resolve, reject) => {
        worker.once('message', () => resolve());
        worker.once('error', reject);
        worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
      });
      await holdIndexing(db, done);
    } catch {
      // dropped here instead
    }
  }
  try {
    while (db.open && dropOneDetached(db)) await new Promise((res) => setImmediate(res));
  } catch {
    // closed meanwhile, or busy: the next purge or start drops what is left
  }
}

/**
 * What a purge waits for before its reply: the entries are gone when the partitions are taken
 * out; their tables are dropped after, by a worker for a file database (not waited for), here
 * for one in memory (waited for, as it holds up this connection anyway).
 */
export async function dropDetachedSoon(db: Db): Promise<void> {
  const dropping = dropDetached(db);
  if (db.memory) await dropping;
}

/**
 * Deletes the entries of range `r` matching `filter` (SQL over `l`, PART for the partition)
 * with id <= `lastId`, partition by partition, PURGE_BATCH entries of the range at a time in
 * (time_stamp, id) order, each window its own transaction, yielding to other requests
 * between windows. Deletes from `target` (a partition's table, or the view `log` so that
 * triggers on it fire). Returns how many went.
 */
export async function purgeRange(db: Db, r: TimeRange, filter: Scope, lastId: number, viaView = false): Promise<number> {
  let deleted = 0;
  for (const k of partsIn(db, r)) deleted += await purgeWindows(db, k, r, filter, lastId, viaView);
  // hours left empty by the purge
  cachedStatement(db, 'DELETE FROM log_counts WHERE entries = 0').run();
  return deleted;
}

/** purgeRange within partition k. */
export async function purgeWindows(db: Db, k: number, r: TimeRange, filter: Scope, lastId: number, viaView: boolean): Promise<number> {
  const t = partTable(k);
  const target = viaView ? 'log' : t;
  const where = `(${armWhere(filter.where, k)}) AND l.id <= ?`;
  const params = [...filter.params, lastId];
  // (time_stamp, id) > (start, -inf) is time_stamp >= start, as a bound SQLite seeks the time index with
  let last: [number, number] = [r.start ?? -Infinity, -Infinity];
  const upTo = r.end === undefined ? '' : ' AND l.time_stamp < ?';
  const upToParams = r.end === undefined ? [] : [r.end];
  const next = db
    .prepare(
      `SELECT l.time_stamp, l.id FROM ${t} l WHERE (l.time_stamp, l.id) > (?, ?)${upTo} ORDER BY l.time_stamp, l.id LIMIT 1 OFFSET ${PURGE_BATCH - 1}`,
    )
    .raw();
  // the window's entries, then a DELETE of those (through the view SQLite counts no changes: the list's length is the count)
  const idsWindow = db
    .prepare(`SELECT l.id FROM ${t} l WHERE (l.time_stamp, l.id) > (?, ?) AND (l.time_stamp, l.id) <= (?, ?) AND ${where}`)
    .pluck();
  const idsRest = db.prepare(`SELECT l.id FROM ${t} l WHERE (l.time_stamp, l.id) > (?, ?)${upTo} AND ${where}`).pluck();
  const del = db.prepare(`DELETE FROM ${target} WHERE id IN (SELECT value FROM json_each(?))`);
  const deleteIds = (ids: unknown[]) => (ids.length === 0 ? 0 : (del.run(JSON.stringify(ids)), ids.length));
  let deleted = 0;
  for (;;) {
    const done = db
      .transaction(() => {
        // the partition may have been taken out meanwhile (another purge): nothing of it is left to delete
        if (cachedStatement(db, 'SELECT NOT EXISTS (SELECT 1 FROM log_parts WHERE part = ?)').pluck().get(k) === 1) return true;
        const end = next.get(...last, ...upToParams) as [number, number] | undefined;
        if (!end) {
          deleted += deleteIds(idsRest.all(...last, ...upToParams, ...params));
          return true;
        }
        deleted += deleteIds(idsWindow.all(...last, ...end, ...params));
        last = end;
        return false;
      })
      .immediate(); // write lock first: a read-then-write on a snapshot another connection committed past fails (SQLITE_BUSY_SNAPSHOT)
    if (done) break;
    // let other requests run between windows: better-sqlite3 is synchronous
    await new Promise((res) => setImmediate(res));
  }
  return deleted;
}

/**
 * Replaces partition k by a new one holding only the entries `keep` selects (a WHERE over its
 * rows), in the caller's transaction; returns how many entries went. The survivors keep their
 * ids; the new partition's index starts empty (they are left to the indexer); partition k is
 * taken out (detachParts), its pages freed when it is dropped, off this transaction. A new
 * partition takes the next number, so it would be the head: when k was not the head, an
 * empty head follows it, opened for the head's day.
 */
function splitPart(db: Db, k: number, keep: { where: string; params: unknown[] }): number {
  const head = cachedStatement(db, 'SELECT part, opened FROM log_parts ORDER BY part DESC LIMIT 1').get() as {
    part: number;
    opened: number | null;
  };
  const opened = cachedStatement(db, 'SELECT opened FROM log_parts WHERE part = ?').pluck().get(k) as number | null;
  const q = head.part + 1;
  addPartition(db, q, opened);
  const t = partTable(k);
  // the survivors not indexed: below fts_upto the insert trigger would index them one by one
  const first = db
    .prepare(`SELECT min(id) FROM ${t} WHERE ${keep.where}`)
    .pluck()
    .get(...keep.params) as number | null;
  if (first !== null) db.prepare('UPDATE log_parts SET fts_upto = ? WHERE part = ?').run(first - 1, q);
  // column for column: both tables have the columns of the log, in its order
  const kept = db
    .prepare(`INSERT INTO ${partTable(q)} (${LOG_COLUMNS}) SELECT ${LOG_COLUMNS} FROM ${t} WHERE ${keep.where} ORDER BY id`)
    .run(...keep.params).changes;
  if (k !== head.part) addPartition(db, q + 1, head.opened);
  const n = detachParts(db, [k]);
  scheduleIndexing(db);
  return n - kept;
}

/**
 * True when a purge of [start, end) may replace partition k by a copy of the rest (splitPart):
 * it keeps at most TRUNCATE_KEEP_MAX entries and at most a fifth of what goes (from the hour
 * counts). Else its entries are deleted in windows.
 */
function splitFits(db: Db, k: number, r: TimeRange): boolean {
  if (r.start !== undefined && r.end !== undefined && r.start >= r.end) return false; // an empty range
  const inRange = countLogEntries(db, r, undefined, k);
  const kept = countLogEntries(db, {}, undefined, k) - inRange;
  return kept <= TRUNCATE_KEEP_MAX && kept * 4 <= inRange;
}

/**
 * True when a purge of [start, end) can take its entries out of partition k within one
 * transaction of bounded length: by a copy of the rest (splitFits), or row by row when at
 * most PURGE_BATCH of them are in the range (what one window of a windowed purge deletes).
 */
export function fitsInOne(db: Db, k: number, r: TimeRange): boolean {
  return splitFits(db, k, r) || countLogEntries(db, r, undefined, k) <= PURGE_BATCH;
}

/**
 * Deletes the entries of [start, end) with id <= `lastId` from partition k in the caller's
 * transaction (see fitsInOne): by a copy of the rest when that fits, else row by row. Returns how
 * many entries went.
 */
export function purgePartInOne(db: Db, k: number, r: TimeRange, lastId: number): number {
  if (splitFits(db, k, r)) return splitRange(db, k, r, lastId);
  const parts = ['id <= ?'];
  const params: number[] = [lastId];
  if (r.start !== undefined) (parts.push('time_stamp >= ?'), params.push(r.start));
  if (r.end !== undefined) (parts.push('time_stamp < ?'), params.push(r.end));
  const n = db.prepare(`DELETE FROM ${partTable(k)} WHERE ${parts.join(' AND ')}`).run(...params).changes;
  cachedStatement(db, 'DELETE FROM log_counts WHERE entries = 0').run();
  return n;
}

/**
 * Deletes the entries of [start, end) with id <= `lastId` from partition k by splitPart, in
 * the caller's transaction (see splitFits). Returns how many entries went.
 */
function splitRange(db: Db, k: number, r: TimeRange, lastId: number): number {
  // the complement of start <= time_stamp < end (time_stamp is NOT NULL), and what came after the purge began
  const parts = ['id > ?'];
  const params: number[] = [lastId];
  if (r.start !== undefined) (parts.push('time_stamp < ?'), params.push(r.start));
  if (r.end !== undefined) (parts.push('time_stamp >= ?'), params.push(r.end));
  return splitPart(db, k, { where: parts.join(' OR '), params });
}

/**
 * Takes every entry with an id up to `lastId` out of the log, in the caller's transaction
 * (deleteAll of a purge that began when `lastId` was the last id issued; contract §6):
 * partitions holding no later entry are taken out, one that holds later ones too is replaced
 * by a copy of those (splitPart), one holding only later ones is kept. The ids go on from the
 * last one issued. Returns how many entries went; the tables are dropped afterwards by
 * dropDetached.
 */
export function detachAll(db: Db, lastId: number): number {
  const info = partsInfo(db);
  const whole: number[] = [];
  const cut: number[] = [];
  for (const k of logParts(db)) {
    const ids = info.get(k)?.ids ?? null;
    if (ids === null || ids[1] <= lastId) whole.push(k);
    else if (ids[0] <= lastId) cut.push(k);
  }
  let n = detachParts(db, whole);
  for (const k of cut) n += splitPart(db, k, { where: 'id > ?', params: [lastId] });
  return n;
}

/**
 * What a stop may have left of the log's background work, picked up at start: entries not
 * yet in the full-text index (a log from before the index, or written by another process),
 * tables of partitions a purge took out but did not drop. Never throws.
 */
export function resumeLogWork(db: Db): void {
  scheduleIndexing(db);
  setTimeout(() => void dropDetached(db), 0).unref();
}

/** Deletes the entry with id `id` through the view `log` (so that any trigger on it fires); returns how many went (0 or 1). */
export function deleteEntry(db: Db, id: number): number {
  const n = cachedStatement(db, 'SELECT count(*) FROM log WHERE id = ?').pluck().get(id) as number;
  if (n > 0) cachedStatement(db, 'DELETE FROM log WHERE id = ?').run(id);
  return n;
}

/** Deletes every entry with an id up to `lastId` through the view `log`, row by row (so that a trigger on it fires for each); returns how many went. */
export function deleteAllViaView(db: Db, lastId: number): number {
  const n = cachedStatement(db, 'SELECT count(*) FROM log WHERE id <= ?').pluck().get(lastId) as number;
  db.prepare('DELETE FROM log WHERE id <= ?').run(lastId);
  return n;
}
