/** SQL scope of a log time range, shaped so SQLite picks the cheap plan. Design and figures: ./README.md. */
import { cachedStatement, type Db } from '../db.js';
import type { Scope } from '../list.js';
import { countLogEntries, logVersion, type TimeRange } from './totals.js';

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
 * startDate (inclusive) / endDate (exclusive) in ms → SQL scope over `l.time_stamp` (contract §6).
 * Sorted by Id (`lic log list --all --since …` pages by `Id < N`) over a range whose ids are
 * dense, the range is also bounded by its min and max id and the time terms hidden from the
 * index (`+l.time_stamp`), so each page walks the primary key: O(page), not O(range).
 */
export function rangeScope(db: Db, r: TimeRange, sortedById: boolean): Scope {
  const time = (col: string) => {
    const parts: string[] = [];
    const params: unknown[] = [];
    if (r.start !== undefined) (parts.push(`${col} >= ?`), params.push(r.start));
    if (r.end !== undefined) (parts.push(`${col} < ?`), params.push(r.end));
    return { parts, params };
  };
  if (r.start === undefined && r.end === undefined) return { where: '1', params: [] };
  if (sortedById) {
    const span = idSpan(db, r, logVersion(db));
    if (span === null) return { where: '0', params: [] };
    const inRange = countLogEntries(db, r);
    if (span[1] - span[0] + 1 <= 4 * inRange) {
      // likelihood(…, 0.9): loose bounds, so the next page's own key bound wins where there is one
      const t = time('+l.time_stamp');
      const ids = ['likelihood(l.id >= ?, 0.9)', 'likelihood(l.id <= ?, 0.9)'];
      return { where: [...t.parts, ...ids].join(' AND '), params: [...t.params, span[0], span[1]] };
    }
  }
  const t = time('l.time_stamp');
  return { where: t.parts.join(' AND '), params: t.params };
}
