/**
 * A page of the log and its total (`GET /v1/log`, contract §5 and §6): the request's SQL run
 * in the partitions the time range touches. Sorted by Id or TimeStamp, whose ranges
 * partitions mostly do not share, one partition after another until the page is full;
 * otherwise as one compound SELECT that SQLite merges in the page's order (each partition
 * read in index order, none sorted whole). Design and figures: ./README.md.
 */
import { cachedStatement, type Db } from '../db.js';
import { toRecords, type ListRequest, type Scope } from '../list.js';
import { armWhere, bindOnce, compound, inKeyOrder, partTable, partsIn } from './parts.js';
import { logTotal, type TimeRange } from './totals.js';

/**
 * One page of `req` within `scope` (the SQL of `range`, which also picks the partitions):
 * records of the selected fields and the exact total of the filter, read in one transaction
 * so they agree. Only the page is held in memory. `guard`, a term ANDed first to every
 * statement's WHERE, is the time budget's (./budget.ts).
 */
export function logPage(
  db: Db,
  req: ListRequest,
  scope: Scope,
  range: TimeRange,
  guard?: string,
): { records: Record<string, unknown>[]; total: number } {
  const { query, take, skip } = req;
  const where = `${guard ? `${guard} AND ` : ''}(${scope.where}) AND (${query.where})`;
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
      const cols = query.select.map((f, i) => `${f.column} AS c${i}`).join(', ');
      for (const k of ordered) {
        const sql = `SELECT ${cols} FROM ${partTable(k)} l WHERE ${armWhere(where, k)} ORDER BY ${query.orderBy} LIMIT ?`;
        const got = cachedStatement(db, sql)
          .raw()
          .all(...params, take - rows.length) as unknown[][];
        rows = rows.length === 0 ? got : rows.concat(got);
        if (rows.length >= take) break;
      }
    } else if (take > 0 && parts.length > 0) {
      // the sort keys as columns of their own: a compound SELECT orders by its result columns
      const cols = [...query.select.map((f, i) => `${f.column} AS c${i}`), ...query.sort.map((k, i) => `${k.field.column} AS s${i}`)];
      const order = query.sort.map((k, i) => `s${i} ${k.desc ? 'DESC' : 'ASC'}`).join(', ');
      // the filter's parameters bound once for every arm (bindOnce), whatever the number of partitions
      const b = bindOnce(where, params);
      const arm = (k: number) => `SELECT ${cols.join(', ')} FROM ${partTable(k)} l WHERE ${armWhere(b.where, k)}`;
      rows = cachedStatement(db, compound(parts, arm, ` ORDER BY ${order} LIMIT ? OFFSET ?`))
        .raw()
        .all(b.named, take, skip) as unknown[][];
    }
    return { records: toRecords(query.select, rows), total: total(db, { query, scope, where, params }) };
  })();
}
