/**
 * Exact totals of log lists without counting every matching row (contract §5: the total counts
 * all matches, whatever take/skip). Design and figures: ./README.md.
 */
import { HOUR } from '../../time.js';
import { cachedStatement, type Db } from '../db.js';
import type { TotalRequest } from '../list.js';
import type { CompareOp, FilterNode } from '../query/index.js';
import { containsTotal, indexable } from './fts.js';
import { countIn, idsIn, paramsKey, partTable, partsIn, partsInfo } from './parts.js';

/** A time range in ms since the epoch: start inclusive, end exclusive, either open (contract §6). */
export interface TimeRange {
  start?: number;
  end?: number;
}

/** The log's version (log_stats): +1 on every insert, update and delete of an entry. */
export function logVersion(db: Db): number {
  return cachedStatement(db, 'SELECT version FROM log_stats').pluck().get() as number;
}

/**
 * Exact number of log entries with start <= time_stamp < end (either side open) and, when
 * given, of one level and of one partition: whole hours summed from the trigger-kept
 * log_counts, the partial hours at the two ends counted from the indexes. O(hours + entries
 * of two hours).
 */
export function countLogEntries(db: Db, range: TimeRange, level?: string, part?: number): number {
  const { start, end } = range;
  const cond = [...(level === undefined ? [] : ['level = ?']), ...(part === undefined ? [] : ['part = ?'])];
  const cp = [...(level === undefined ? [] : [level]), ...(part === undefined ? [] : [part])];
  if (start === undefined && end === undefined) {
    return cond.length === 0
      ? (cachedStatement(db, 'SELECT entries FROM log_stats').pluck().get() as number)
      : (cachedStatement(db, `SELECT coalesce(sum(entries), 0) FROM log_counts WHERE ${cond.join(' AND ')}`)
          .pluck()
          .get(...cp) as number);
  }
  if (start !== undefined && end !== undefined && start >= end) return 0;
  const onLevel = level === undefined ? '' : ' AND level = ?';
  const lp = level === undefined ? [] : [level];
  const rows = (a: number, b: number) =>
    cachedStatement(
      db,
      `SELECT count(*) FROM ${part === undefined ? 'log' : partTable(part)} WHERE time_stamp >= ? AND time_stamp < ?${onLevel}`,
    )
      .pluck()
      .get(a, b, ...lp) as number;
  // whole hours: [lo, hi) in hour numbers; ±Infinity for an open side
  const lo = start === undefined ? -Infinity : Math.ceil(start / HOUR);
  const hi = end === undefined ? Infinity : Math.floor(end / HOUR);
  if (lo >= hi) return rows(start!, end!); // under two hours: count them
  let n = cachedStatement(
    db,
    `SELECT coalesce(sum(entries), 0) FROM log_counts WHERE hour >= ? AND hour < ?${cond.map((c) => ` AND ${c}`).join('')}`,
  )
    .pluck()
    .get(lo, hi, ...cp) as number;
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

/** `Message.Contains("x")` alone, with x one the full-text index can answer → x; any other filter → undefined. */
function messageContains(f: FilterNode): string | undefined {
  if (f.kind !== 'call' || f.method !== 'contains' || f.target.name.toLowerCase() !== 'message') return undefined;
  return f.arg.kind === 'literal' && typeof f.arg.value === 'string' && indexable(f.arg.value) ? f.arg.value : undefined;
}

/** Totals cached per database: key → entry. Map order is recency (LRU). */
const totalsCache = new WeakMap<Db, Map<string, CachedTotal>>();
const TOTALS_CACHED = 256;

interface CachedTotal {
  version: number;
  total: number;
  /** for a key-paged query: its bound and full params, to derive the next page's total */
  bound?: number;
  params?: unknown[];
}

type Bound = { op: '<' | '<=' | '>' | '>='; bound: number; rest: FilterNode[] };

/**
 * The top-level conjunct `Id <op> N` (N an integer, op < <= > >=) of a filter, field on either
 * side, and the other conjuncts, when there is exactly one; else undefined. Only then is the
 * filter "the rest AND Id <op> N".
 */
function idBound(filter: FilterNode | undefined): Bound | undefined {
  if (!filter) return undefined;
  const conjuncts: FilterNode[] = [];
  const flatten = (n: FilterNode): void => {
    if (n.kind === 'and') n.operands.forEach(flatten);
    else conjuncts.push(n);
  };
  flatten(filter);
  const mirror: Partial<Record<CompareOp, Bound['op']>> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' };
  const found: Bound[] = [];
  for (const n of conjuncts) {
    if (n.kind !== 'compare' || !(n.op in mirror)) continue;
    const isId = (x: FilterNode) => x.kind === 'field' && x.name.toLowerCase() === 'id';
    const intLit = (x: FilterNode) => x.kind === 'literal' && typeof x.value === 'number' && Number.isSafeInteger(x.value);
    const rest = conjuncts.filter((c) => c !== n);
    if (isId(n.left) && intLit(n.right)) found.push({ op: n.op as Bound['op'], bound: (n.right as { value: number }).value, rest });
    else if (intLit(n.left) && isId(n.right)) found.push({ op: mirror[n.op]!, bound: (n.left as { value: number }).value, rest });
  }
  return found.length === 1 ? found[0] : undefined;
}

/**
 * The total of "the rest AND Id <op> N" (params[at] is N) in partitions `parts`, the first
 * page of a walk by key: a partition whose ids all meet the bound counts as for the rest alone,
 * which does not change from one page to the next (from the hour counts when the rest is
 * nothing or `Level = "x"`, else counted once and reused while the partition is unchanged);
 * one whose ids all fail it counts nothing; only the one the bound cuts through is counted
 * with it.
 */
function boundTotal(db: Db, parts: readonly number[], range: TimeRange, kb: Bound, where: string, params: unknown[], at: number): number {
  const info = partsInfo(db);
  // the rest alone: the bound's param made one that every id meets
  const open = params.map((p, i) => (i === at ? (kb.op[0] === '<' ? Infinity : -Infinity) : p));
  const level = kb.rest.length === 1 ? levelEquals(kb.rest[0]!) : undefined;
  const meets = (id: number) =>
    kb.op === '<' ? id < kb.bound : kb.op === '<=' ? id <= kb.bound : kb.op === '>' ? id > kb.bound : id >= kb.bound;
  let n = 0;
  for (const k of parts) {
    const ids = info.get(k)?.ids;
    if (!ids) continue;
    const [a, b] = [meets(ids[0]), meets(ids[1])];
    if (a && b) {
      n +=
        kb.rest.length === 0
          ? countLogEntries(db, range, undefined, k)
          : level !== undefined
            ? countLogEntries(db, range, level, k)
            : countIn(db, [k], where, open);
    } else if (a || b) {
      n += countIn(db, [k], where, params);
    }
  }
  return n;
}

/**
 * ListSource.total of the log over `range` (already in the request's scope): exact, and in
 * order of preference cached while the log is unchanged, derived from the previous page's
 * total when paging by `Id < N`, summed from the hour counts (no filter or `Level = "x"`),
 * counted from the full-text index (`Message.Contains("x")` alone), or counted in the
 * partitions the range touches. Why each: ./README.md.
 */
export function logTotal(range: TimeRange): (db: Db, q: TotalRequest) => number {
  return (db, { query, where, params }) => {
    const parts = partsIn(db, range);
    const countSql = (w: string, p: unknown[]) => countIn(db, parts, w, p);
    const fromCounts = () => {
      if (!query.filter) return countLogEntries(db, range);
      const level = levelEquals(query.filter);
      if (level !== undefined) return countLogEntries(db, range, level);
      const needle = messageContains(query.filter);
      return needle === undefined ? undefined : containsTotal(db, parts, range, needle, (k) => countIn(db, [k], where, params));
    };
    const version = logVersion(db);
    let cache = totalsCache.get(db);
    if (!cache) totalsCache.set(db, (cache = new Map()));
    const kb = idBound(query.filter);
    // the bound's place among the params: only when no other param has the same value
    const at = kb ? params.indexOf(kb.bound) : -1;
    const keyed = kb !== undefined && at >= 0 && params.lastIndexOf(kb.bound) === at;
    const key = keyed
      ? `${where}\n${paramsKey(params.map((p, i) => (i === at ? { bound: kb.op } : p)))}` // `{bound}`: the masked key bound
      : `${where}\n${paramsKey(params)}`;
    const hit = cache.get(key);
    let total: number;
    if (hit && hit.version === version && (!keyed || hit.bound === kb.bound)) {
      total = hit.total;
    } else if (keyed && hit && hit.version === version && hit.bound !== undefined && hit.params) {
      // the rows between the two bounds: in the larger of the two sets, not in the smaller
      const { op, bound } = kb;
      const shrinks = op[0] === '>' ? bound > hit.bound : bound < hit.bound;
      const [lo, hi] = bound < hit.bound ? [bound, hit.bound] : [hit.bound, bound];
      const [gt, lt] = op === '<' || op === '>=' ? ['>=', '<'] : ['>', '<='];
      // likelihood(): these are the narrowest bounds on the key, so SQLite walks just [lo, hi]
      const between = `(${where}) AND likelihood(l.id ${gt} ?, 0.0001) AND likelihood(l.id ${lt} ?, 0.0001)`;
      // only the partitions whose ids reach between the two bounds
      const near = idsIn(db, parts, lo, hi);
      total = shrinks
        ? hit.total - countIn(db, near, between, [...hit.params, lo, hi]) // they leave
        : hit.total + countIn(db, near, between, [...params, lo, hi]); // they join
    } else if (keyed) {
      total = boundTotal(db, parts, range, kb, where, params, at);
    } else {
      total = fromCounts() ?? countSql(where, params);
    }
    cache.delete(key);
    cache.set(key, keyed ? { version, total, bound: kb.bound, params } : { version, total });
    if (cache.size > TOTALS_CACHED) cache.delete(cache.keys().next().value!);
    return total;
  };
}
