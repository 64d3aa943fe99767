import { isoOrNull, type Db } from './db.js';
import { badRequest } from './errors.js';
import { compileListQuery, type ParsedListQuery } from './query/index.js';
import { QueryError, type CompileOptions, type FieldSpec, type QueryFields } from './query/types.js';
import { TAKE_DEFAULT, TAKE_MAX } from '../wire.js';

/** The list query parameters (contract §5) as the route received them (already type-checked by the schema). */
export interface ListParams {
  select?: string;
  filter?: string;
  sort?: string;
  take?: number;
  skip?: number;
}

/** A list endpoint's source: the FROM clause and its fields, and optionally a cheaper exact total. */
export interface ListSource {
  spec: QueryFields;
  /** FROM clause written by us, e.g. `log l` or `orders o` */
  from: string;
  /** exact count of the rows matching `where` (the log: src/server/log/totals.ts); absent → count(*) */
  total?: (db: Db, q: TotalRequest) => number;
}

/** What ListSource.total is asked: the request's compiled query, its scope, and the two ANDed. */
export interface TotalRequest {
  query: ParsedListQuery;
  scope: Scope;
  /** `(scope) AND (filter)` and its params, as the page query uses them */
  where: string;
  params: unknown[];
}

/** Fixed conditions a route adds to the user's filter (a customer's orders, a time range). */
export interface Scope {
  where: string;
  params: unknown[];
}

/** One request of a list, compiled once (compileListRequest) and handed to everything that needs it. */
export interface ListRequest {
  query: ParsedListQuery;
  take: number;
  skip: number;
}

/** JSON-schema fragment of the list query parameters (contract §5), shared by every list route (contract §5). */
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
export function compileOr400(spec: QueryFields, q: ListParams, opts?: CompileOptions): ParsedListQuery {
  try {
    return compileListQuery(spec, q, opts);
  } catch (e) {
    if (e instanceof QueryError) throw badRequest(e.message, e.param);
    throw e;
  }
}

/** A list request's parameters → its compiled query (once per request) and paging; 400 as compileOr400. */
export function compileListRequest(spec: QueryFields, q: ListParams, opts?: CompileOptions): ListRequest {
  return { query: compileOr400(spec, q, opts), take: q.take ?? TAKE_DEFAULT, skip: q.skip ?? 0 };
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
  req: ListRequest,
  scope: Scope = { where: '1', params: [] },
): { records: Record<string, unknown>[]; total: number } {
  const { query, take, skip } = req;
  const where = `(${scope.where}) AND (${query.where})`;
  const params = [...scope.params, ...query.params];
  const cols = query.select.map((f, i) => `${f.column} AS c${i}`).join(', ');
  const { rows, total } = db.transaction(() => ({
    rows:
      take === 0
        ? []
        : (db
            .prepare(`SELECT ${cols} FROM ${source.from} WHERE ${where} ORDER BY ${query.orderBy} LIMIT ? OFFSET ?`)
            .raw()
            .all(...params, take, skip) as unknown[][]),
    total: source.total
      ? source.total(db, { query, scope, where, params })
      : ((db
          .prepare(`SELECT count(*) FROM ${source.from} WHERE ${where}`)
          .pluck()
          .get(...params) as number) ?? 0),
  }))();
  return { records: toRecords(query.select, rows), total };
}

/** Raw rows (the selected fields first, in `select` order) → wire records of those fields. */
export function toRecords(select: readonly FieldSpec[], rows: readonly unknown[][]): Record<string, unknown>[] {
  return rows.map((r) => {
    const rec: Record<string, unknown> = {};
    select.forEach((f, i) => (rec[f.name] = fieldToWire(f, r[i])));
    return rec;
  });
}
