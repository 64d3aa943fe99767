/**
 * A page of the log and its total (`GET /v1/log`, contract §5 and §6): the request's SQL run
 * in the partitions the time range touches. Sorted by Id or TimeStamp, whose ranges
 * partitions mostly do not share, one partition after another until the page is full;
 * otherwise as one compound SELECT that SQLite merges in the page's order (each partition
 * read in index order, none sorted whole). Design and figures: ./README.md.
 */
import { cachedStatement, type Db } from '../db.js';
import { toRecords, type ListRequest, type Scope } from '../list.js';
import type { FieldSpec } from '../query/types.js';
import { armWhere, bindOnce, compound, inKeyOrder, partTable, partsIn } from './parts.js';
import { logTotal, type TimeRange } from './totals.js';

/**
 * One page of `req` within `scope` (the SQL of `range`, which also picks the partitions):
 * records of the selected fields and the exact total of the filter, read in one transaction
 * so they agree. Only the page is held in memory.
 */
export function logPage(db: Db, req: ListRequest, scope: Scope, range: TimeRange): { records: Record<string, unknown>[]; total: number } {
  const { rows, total } = readPage(db, req, scope, range, req.query.select.map((f, i) => `${f.column} AS c${i}`));
  return { records: toRecords(req.query.select, rows), total };
}

/**
 * The page of logPage with each entry as its JSON text, written by SQLite (json_object, the
 * time by strftime) exactly as `JSON.stringify` writes the record logPage makes of it: for
 * the stream (`lic log list --all`) a third less work than rows made into objects and
 * stringified again (bench/stream-profile.md). Undefined when a selected field's wire form is
 * one SQLite would write otherwise, or a row holds a value outside what entryJsonSql vouches
 * for (then logPage reads the page). test/server/log-page-text.test.ts compares the bytes.
 */
export function logPageText(db: Db, req: ListRequest, scope: Scope, range: TimeRange): { entries: string[]; total: number } | undefined {
  const json = entryJsonSql(req.query.select);
  if (!json) return undefined;
  const { rows, total } = readPage(db, req, scope, range, [`${json} AS c0`]);
  const entries: string[] = [];
  for (const r of rows) {
    if (typeof r[0] !== 'string') return undefined;
    entries.push(r[0]);
  }
  return { entries, total };
}

/** The latest time toISOString writes without a sign and six-digit year: 9999-12-31T23:59:59.999Z, in ms. */
const LAST_4_DIGIT_YEAR_MS = 253402300799999;

/**
 * SQL of one entry as the JSON text of its record (fieldToWire of each selected field, in
 * order, by JSON.stringify), or NULL for a row with a value it does not vouch for; undefined
 * for a selection with a field it does not write: one with its own toWire, a bool or a
 * number (SQLite writes a REAL with 15 significant digits, V8 the shortest exact form).
 * Strings are escaped as JSON.stringify escapes them (`\"`, `\\`, \b \f \n \r \t, else
 * \u00xx); integers are written alike; a time (ms since 1970, an integer) is RFC 3339 in UTC
 * with milliseconds, as toISOString, for years 1970 to 9999.
 */
function entryJsonSql(select: readonly FieldSpec[]): string | undefined {
  const guards: string[] = [];
  const pairs: string[] = [];
  for (const f of select) {
    if (f.toWire || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(f.name)) return undefined;
    const c = f.column;
    switch (f.type) {
      case 'int':
        guards.push(`typeof(${c}) = 'integer'`);
        pairs.push(`'${f.name}', ${c}`);
        break;
      case 'string':
        guards.push(`typeof(${c}) = 'text'`);
        pairs.push(`'${f.name}', ${c}`);
        break;
      case 'timestamp':
        guards.push(`typeof(${c}) = 'integer' AND ${c} BETWEEN 0 AND ${LAST_4_DIGIT_YEAR_MS}`);
        pairs.push(`'${f.name}', strftime('%Y-%m-%dT%H:%M:%S', ${c} / 1000, 'unixepoch') || '.' || substr(1000 + ${c} % 1000, 2) || 'Z'`);
        break;
      default:
        return undefined;
    }
  }
  if (!pairs.length) return undefined;
  return `CASE WHEN ${guards.join(' AND ')} THEN json_object(${pairs.join(', ')}) END`;
}

/**
 * The rows of a page (each the columns `cols`, in order; a compound read adds the sort keys
 * after them) and the filter's total, read in one transaction so they agree.
 */
function readPage(db: Db, req: ListRequest, scope: Scope, range: TimeRange, cols: readonly string[]): { rows: unknown[][]; total: number } {
  const { query, take, skip } = req;
  const where = `(${scope.where}) AND (${query.where})`;
  const params = [...scope.params, ...query.params];
  const total = logTotal(range);
  return db.transaction(() => {
    const parts = partsIn(db, range);
    const first = query.sort[0]!;
    const key = first.field.name === 'id' || first.field.name === 'timeStamp' ? first.field.name : undefined;
    const ordered = take > 0 && skip === 0 && key ? inKeyOrder(db, parts, key, first.desc) : undefined;
    let rows: unknown[][] = [];
    if (ordered) {
      // partitions apart in the page's order: one after another until the page is full (a
      // merge of every partition costs ~4 µs an entry more, measured on a page of 1000)
      for (const k of ordered) {
        const sql = `SELECT ${cols.join(', ')} FROM ${partTable(k)} l WHERE ${armWhere(where, k)} ORDER BY ${query.orderBy} LIMIT ?`;
        const got = cachedStatement(db, sql)
          .raw()
          .all(...params, take - rows.length) as unknown[][];
        rows = rows.length === 0 ? got : rows.concat(got);
        if (rows.length >= take) break;
      }
    } else if (take > 0 && parts.length > 0) {
      // the sort keys as columns of their own: a compound SELECT orders by its result columns
      const all = [...cols, ...query.sort.map((k, i) => `${k.field.column} AS s${i}`)];
      const order = query.sort.map((k, i) => `s${i} ${k.desc ? 'DESC' : 'ASC'}`).join(', ');
      // the filter's parameters bound once for every arm (bindOnce), whatever the number of partitions
      const b = bindOnce(where, params);
      const arm = (k: number) => `SELECT ${all.join(', ')} FROM ${partTable(k)} l WHERE ${armWhere(b.where, k)}`;
      rows = cachedStatement(db, compound(parts, arm, ` ORDER BY ${order} LIMIT ? OFFSET ?`))
        .raw()
        .all(b.named, take, skip) as unknown[][];
    }
    return { rows, total: total(db, { query, scope, where, params }) };
  })();
}
