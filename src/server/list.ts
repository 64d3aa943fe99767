import type { Db } from './db.js';
import { isoOrEmpty } from './db.js';
import { badRequest } from './errors.js';
import { compileListQuery } from './query/index.js';
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
}

/** JSON-schema fragment of the rule-3 query parameters, shared by every list route (contract §5). */
export const listQuerySchema = {
  select: { type: 'string', maxLength: 4096 },
  filter: { type: 'string', maxLength: 4096 },
  sort: { type: 'string', maxLength: 4096 },
  take: { type: 'integer', minimum: 0, maximum: TAKE_MAX },
  skip: { type: 'integer', minimum: 0, maximum: 2147483647 },
} as const;

/** Stored value → wire value by field type (contract §2: timestamps RFC 3339 UTC, booleans true/false). */
export function fieldToWire(f: FieldSpec, v: unknown): unknown {
  if (f.toWire) return f.toWire(v);
  switch (f.type) {
    case 'timestamp':
      return isoOrEmpty(v as number | null);
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
  const rows = take === 0
    ? []
    : (db
        .prepare(`SELECT ${cols} FROM ${source.from} WHERE ${where} ORDER BY ${c.orderBy} LIMIT ? OFFSET ?`)
        .raw()
        .all(...params, take, skip) as unknown[][]);
  const total = (db.prepare(`SELECT count(*) FROM ${source.from} WHERE ${where}`).pluck().get(...params) as number) ?? 0;
  const records = rows.map((r) => {
    const rec: Record<string, unknown> = {};
    c.select.forEach((f, i) => (rec[f.name] = fieldToWire(f, r[i])));
    return rec;
  });
  return { records, total };
}
