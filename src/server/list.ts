import type { Db } from './db.js';
import { isoOrNull } from './db.js';
import { badRequest } from './errors.js';
import { compileListQuery, parseFilter, type CompareOp, type FilterNode } from './query/index.js';
import { QueryError, type FieldSpec, type ListSpec } from './query/types.js';
import { TAKE_DEFAULT, TAKE_MAX } from '../wire.js';

/** The rule-3 query parameters as the route received them (already type-checked by the schema). */
export interface ListParams {
  select?: string;
  filter?: string;
  sort?: string;
  take?: number;
  skip?: number;
}

/** A list endpoint's source: the FROM clause, fixed scope conditions, and its fields. */
export interface ListSource {
  spec: ListSpec;
  /** FROM clause written by us, e.g. `log l` or `orders o` */
  from: string;
  /**
   * Optional exact total for the shapes of request the source can answer without counting
   * rows (the log: trigger-kept counts per hour and level); undefined → counted here.
   */
  count?: (db: Db, q: CountRequest) => number | undefined;
  /**
   * Optional version of the source's rows: a number that changes with every insert, update
   * and delete (the log: kept by triggers). With it, listPage caches totals while it is
   * unchanged, and derives the total of a request paged by key (`… and Id < N`) from the
   * previous page's instead of counting again.
   */
  version?: (db: Db) => number;
}

/** What ListSource.count is asked: the parsed filter (undefined when absent) and the scope. */
export interface CountRequest {
  filter: FilterNode | undefined;
  scope: { where: string; params: unknown[] };
}

/** JSON-schema fragment of the rule-3 query parameters, shared by every list route (contract §5). */
export const listQuerySchema = {
  select: { type: 'string', maxLength: 4096 },
  filter: { type: 'string', maxLength: 4096 },
  sort: { type: 'string', maxLength: 4096 },
  take: { type: 'integer', minimum: 0, maximum: TAKE_MAX, default: TAKE_DEFAULT },
  skip: { type: 'integer', minimum: 0, maximum: 2147483647 },
} as const;

/** Stored value → wire value by field type (contract §2: timestamps RFC 3339 UTC, booleans true/false). */
export function fieldToWire(f: FieldSpec, v: unknown): unknown {
  if (f.toWire) return f.toWire(v);
  switch (f.type) {
    case 'timestamp':
      return isoOrNull(v as number | null);
    case 'bool':
      return v === 1 || v === true;
    default:
      return v ?? '';
  }
}

/** Compiles the user's filter/sort/select, turning a QueryError into a 400 that names the parameter. */
export function compileOr400(spec: ListSpec, q: ListParams) {
  try {
    return compileListQuery(spec, q);
  } catch (e) {
    if (e instanceof QueryError) throw badRequest(e.message, e.param);
    throw e;
  }
}

/**
 * Runs one page of a list (contract §5): filter AND `scope`, sorted, take/skip, and the
 * total of matching rows regardless of paging. Only the page is ever held in memory.
 * Page and total are read in one transaction, so they agree even with another writer.
 * Returns wire records carrying the selected fields only.
 */
export function listPage(
  db: Db,
  source: ListSource,
  q: ListParams,
  scope: { where: string; params: unknown[] } = { where: '1', params: [] },
): { records: Record<string, unknown>[]; total: number } {
  const c = compileOr400(source.spec, q);
  const where = `(${scope.where}) AND (${c.where})`;
  const params = [...scope.params, ...c.params];
  const take = q.take ?? TAKE_DEFAULT;
  const skip = q.skip ?? 0;
  const cols = c.select.map((f, i) => `${f.column} AS c${i}`).join(', ');
  const { rows, total } = db.transaction(() => ({
    rows:
      take === 0
        ? []
        : (db
            .prepare(`SELECT ${cols} FROM ${source.from} WHERE ${where} ORDER BY ${c.orderBy} LIMIT ? OFFSET ?`)
            .raw()
            .all(...params, take, skip) as unknown[][]),
    total: countTotal(db, source, q.filter, scope, where, params),
  }))();
  const records = rows.map((r) => {
    const rec: Record<string, unknown> = {};
    c.select.forEach((f, i) => (rec[f.name] = fieldToWire(f, r[i])));
    return rec;
  });
  return { records, total };
}

// ---------------------------------------------------------------------------------------
// the total (contract §5: it counts ALL matching rows, so it stays exact; only cheaper)
//
// A plain count(*) walks every matching row, so on a large source it, not the page,
// dominates a request (bench/results.md, 1M log entries: count(*) 30–50 ms against
// 0.3 ms for the page itself; 5–10 ms against 0.3 ms with Level = "Warning"). Three ways
// around it, all exact:
// 1. With ListSource.version, a total is cached per (where, params) and reused while the
//    version is unchanged: the version moves with every insert/update/delete (triggers),
//    and a filter has no time-dependent parts (times are literals), so the same query
//    over the same rows has the same count.
// 2. On a miss, ListSource.count answers the shapes a source keeps counts for (the log: no
//    filter or Level = "x", with a date range: trigger-kept counts per hour and level).
// 3. Paging by key (`<filter> and Id < N`, sorted by Id: lic … --all) asks a new bound
//    each page. The previous page's total is kept under the query with the bound masked
//    out, and the new one is derived: old total minus the rows between the two bounds,
//    a range of the primary key only a page long. A walk over a million rows then
//    counts each row once instead of once per page.

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

/** Params → cache-key text; non-finite numbers spelt out (JSON would make them null). A param is never an object, so `{bound}` marks the masked key bound unambiguously. */
function paramsKey(params: readonly unknown[]): string {
  return JSON.stringify(params.map((p) => (typeof p === 'number' && !Number.isFinite(p) ? { n: String(p) } : p)));
}

/**
 * The top-level conjunct `Id <op> N` (N an integer, op < <= > >=) of a filter, field on
 * either side, when there is exactly one; else undefined. Only a top-level conjunct
 * makes the filter "the rest AND Id <op> N", which the derivation relies on.
 */
function idBound(filter: FilterNode | undefined, idName: string): { op: '<' | '<=' | '>' | '>='; bound: number } | undefined {
  if (!filter) return undefined;
  const conjuncts: FilterNode[] = [];
  const flatten = (n: FilterNode): void => {
    if (n.kind === 'and') n.operands.forEach(flatten);
    else conjuncts.push(n);
  };
  flatten(filter);
  const mirror: Partial<Record<CompareOp, '<' | '<=' | '>' | '>='>> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' };
  const found: { op: '<' | '<=' | '>' | '>='; bound: number }[] = [];
  for (const n of conjuncts) {
    if (n.kind !== 'compare' || !(n.op in mirror)) continue;
    const isId = (x: FilterNode) => x.kind === 'field' && x.name.toLowerCase() === idName.toLowerCase();
    const intLit = (x: FilterNode) => x.kind === 'literal' && typeof x.value === 'number' && Number.isSafeInteger(x.value);
    if (isId(n.left) && intLit(n.right)) found.push({ op: n.op as '<' | '<=' | '>' | '>=', bound: (n.right as { value: number }).value });
    else if (intLit(n.left) && isId(n.right)) found.push({ op: mirror[n.op]!, bound: (n.left as { value: number }).value });
  }
  return found.length === 1 ? found[0] : undefined;
}

/** Exact count of the rows matching `where` (scope AND filter), by the cheapest way the source allows. */
function countTotal(
  db: Db,
  source: ListSource,
  filterText: string | undefined,
  scope: { where: string; params: unknown[] },
  where: string,
  params: unknown[],
): number {
  const countSql = (w: string, p: unknown[]) =>
    (db
      .prepare(`SELECT count(*) FROM ${source.from} WHERE ${w}`)
      .pluck()
      .get(...p) as number) ?? 0;
  if (!source.count && !source.version) return countSql(where, params);
  // already compiled, so it parses
  const filter = filterText === undefined ? undefined : parseFilter(filterText);
  const known = () => source.count?.(db, { filter, scope });
  if (!source.version) return known() ?? countSql(where, params);

  const version = source.version(db);
  let cache = totalsCache.get(db);
  if (!cache) totalsCache.set(db, (cache = new Map()));
  const idField = source.spec.fields.find((f) => f.name.toLowerCase() === 'id');
  const kb = idField ? idBound(filter, idField.name) : undefined;
  // the bound's place among the params: only when no other param has the same value
  const at = kb ? params.indexOf(kb.bound) : -1;
  const keyed = kb !== undefined && at >= 0 && params.lastIndexOf(kb.bound) === at;
  const key = keyed
    ? `${source.from}\n${where}\n${paramsKey(params.map((p, i) => (i === at ? { bound: kb.op } : p)))}`
    : `${source.from}\n${where}\n${paramsKey(params)}`;
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
    // likelihood(): tells the planner these two are the narrowest bounds on the key, so it
    // walks just [lo, hi] of the primary key even when the scope has id bounds of its own
    const col = idField!.column;
    const between = `(${where}) AND likelihood(${col} ${gt} ?, 0.0001) AND likelihood(${col} ${lt} ?, 0.0001)`;
    total = shrinks
      ? hit.total - countSql(between, [...hit.params, lo, hi]) // they leave
      : hit.total + countSql(between, [...params, lo, hi]); // they join
  } else {
    total = known() ?? countSql(where, params);
  }
  cache.delete(key);
  cache.set(key, keyed ? { version, total, bound: kb.bound, params } : { version, total });
  if (cache.size > TOTALS_CACHED) cache.delete(cache.keys().next().value!);
  return total;
}
