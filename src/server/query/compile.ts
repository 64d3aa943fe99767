/**
 * Compiler of the list query language (contract §5): `filter`, `sort` and `select` over a
 * QueryFields → parameterised SQL pieces. No user text ever reaches the SQL: every literal
 * becomes a `?` parameter and column SQL comes only from FieldSpec.column.
 *
 * Semantics of `filter` (those of C# / Dynamic LINQ, which the original service runs):
 * - two-valued logic: a comparison involving a NULL column is false, except that
 *   `a = b` is true when both are null and `a != b` is true when exactly one is;
 *   `not x` is true exactly when x is false (so `not (ExpireDate < "2025-01-01")` includes
 *   keys without an expiry date). SQL NULLs are mapped accordingly (IS / IS NOT, and
 *   coalesce under `not`), so the emitted `where` is NULL only where it means "no match".
 * - strings compare by UTF-8 bytes (SQLite BINARY), case-sensitively; Contains,
 *   StartsWith and EndsWith are byte-exact substring tests (no LIKE, no wildcards).
 * - a timestamp field compares with a string literal holding an RFC 3339 time or a plain
 *   date (midnight UTC), as milliseconds since the epoch.
 */
import {
  MAX_QUERY_LENGTH,
  parseFilter,
  queryError,
  quoteForMessage,
  type CallNode,
  type CompareNode,
  type FieldNode,
  type FilterNode,
  type LiteralNode,
} from './parse.js';
import { parseRfc3339 } from '../../time.js';
import type { CompiledQuery, CompileOptions, ColumnType, FieldSpec, QueryFields, SortKey } from './types.js';

type Param = string | number | null;

/** A compiled condition; `nullable` when its SQL value can be NULL (which means false). */
interface Cond {
  sql: string;
  params: Param[];
  nullable: boolean;
}

interface SpecIndex {
  byName: Map<string, FieldSpec>;
  order: Map<FieldSpec, number>;
  idField: FieldSpec;
  defaultSort: SortKey[];
  allNames: string;
  queryableNames: string;
}

const specCache = new WeakMap<QueryFields, SpecIndex>();

/** Per-spec lookup tables, built once per QueryFields object. Throws Error on a malformed spec (our bug). */
function indexSpec(spec: QueryFields): SpecIndex {
  let ix = specCache.get(spec);
  if (ix) return ix;
  const byName = new Map<string, FieldSpec>();
  const order = new Map<FieldSpec, number>();
  spec.fields.forEach((f, i) => {
    const key = f.name.toLowerCase();
    if (byName.has(key)) throw new Error(`QueryFields: duplicate field name ${f.name}`);
    byName.set(key, f);
    order.set(f, i);
  });
  const idField = byName.get('id');
  if (!idField || idField.queryable === false) throw new Error('QueryFields: needs a queryable "id" field');
  const defaultSort: SortKey[] = spec.defaultSort.map((k) => {
    const field = byName.get(k.name.toLowerCase());
    if (!field || field.queryable === false) throw new Error(`QueryFields: default sort field ${k.name} is not a queryable field`);
    return { field, desc: k.desc };
  });
  ix = {
    byName,
    order,
    idField,
    defaultSort: withIdTiebreak(defaultSort, idField),
    allNames: spec.fields.map((f) => f.name).join(', '),
    queryableNames: spec.fields
      .filter((f) => f.queryable !== false)
      .map((f) => f.name)
      .join(', '),
  };
  specCache.set(spec, ix);
  return ix;
}

function withIdTiebreak(keys: SortKey[], idField: FieldSpec): SortKey[] {
  return keys.some((k) => k.field === idField) ? keys : [...keys, { field: idField, desc: false }];
}

function lookup(ix: SpecIndex, param: string, name: string, pos: number, needQueryable: boolean): FieldSpec {
  const f = ix.byName.get(name.toLowerCase());
  if (!f) {
    const names = needQueryable ? ix.queryableNames : ix.allNames;
    throw queryError(param, pos, `unknown field ${quoteForMessage(name)}`, `fields are: ${names}`);
  }
  if (needQueryable && f.queryable === false) {
    const verb = param === 'sort' ? 'sorted by' : 'filtered on';
    throw queryError(param, pos, `field "${f.name}" can't be ${verb}`, `fields that can: ${ix.queryableNames}`);
  }
  return f;
}

// ---------------------------------------------------------------------------------------
// filter

const TYPE_DESC: Record<ColumnType, string> = {
  int: 'an integer',
  number: 'a number',
  string: 'a string',
  bool: 'a bool',
  timestamp: 'a timestamp',
};

/** What a comparison operand is, before it is turned into SQL. */
type Operand =
  | { kind: 'field'; field: FieldSpec; node: FieldNode }
  | { kind: 'literal'; node: LiteralNode }
  | { kind: 'cond'; cond: Cond; node: FilterNode };

/** Comparison class: values compare only within one class. */
type Klass = 'numeric' | 'string' | 'bool' | 'timestamp';

function fieldKlass(t: ColumnType): Klass {
  return t === 'int' || t === 'number' ? 'numeric' : t;
}

function literalKlass(v: LiteralNode['value']): Klass | 'null' {
  if (v === null) return 'null';
  if (typeof v === 'number') return 'numeric';
  if (typeof v === 'boolean') return 'bool';
  return 'string';
}

function describeOperand(o: Operand): string {
  if (o.kind === 'field') return `field "${o.field.name}" (${o.field.type})`;
  if (o.kind === 'cond') return 'a condition';
  const v = o.node.value;
  if (v === null) return 'null';
  if (typeof v === 'number') return `the number ${v}`;
  if (typeof v === 'boolean') return `${v}`;
  return `the string ${quoteForMessage(v)}`;
}

const EXPECT_FOR: Record<Klass, string> = {
  numeric: 'a number',
  string: 'a "string"',
  bool: 'true, false or a condition',
  timestamp: 'a time string like "2025-01-18T14:04:02.659Z" or "2025-01-18"',
};

class FilterCompiler {
  constructor(
    private readonly ix: SpecIndex,
    private readonly opts: CompileOptions = {},
  ) {}

  private field(node: FieldNode): FieldSpec {
    return lookup(this.ix, 'filter', node.name, node.pos, true);
  }

  /** A node in condition position (top level, operand of and/or/not). */
  cond(node: FilterNode): Cond {
    switch (node.kind) {
      case 'and':
      case 'or':
        return this.logical(node.kind, node.operands);
      case 'not': {
        const o = node.operand;
        if (o.kind === 'field') {
          const f = this.field(o);
          if (f.type !== 'bool') {
            throw queryError(
              'filter',
              o.pos,
              `"not" needs a condition but field "${f.name}" is ${TYPE_DESC[f.type]}`,
              `not binds tighter than comparisons: write not (${f.name} = …)`,
            );
          }
        }
        const c = this.cond(o);
        return { sql: c.nullable ? `NOT coalesce(${c.sql}, 0)` : `NOT (${c.sql})`, params: c.params, nullable: false };
      }
      case 'compare':
        return this.compare(node);
      case 'call':
        return this.call(node);
      case 'field': {
        const f = this.field(node);
        if (f.type !== 'bool') {
          throw queryError(
            'filter',
            node.pos,
            `expected a condition but field "${f.name}" is ${TYPE_DESC[f.type]}`,
            `compare it, e.g. ${f.name} = ${f.type === 'string' ? '"…"' : '…'}`,
          );
        }
        return { sql: `${f.column} = 1`, params: [], nullable: true };
      }
      case 'literal': {
        if (typeof node.value !== 'boolean') {
          throw queryError('filter', node.pos, `expected a condition but found ${describeOperand({ kind: 'literal', node })}`);
        }
        return { sql: '?', params: [node.value ? 1 : 0], nullable: false };
      }
    }
  }

  /**
   * and/or chains: emitted as a balanced tree of parenthesised pairs, so a chain of n terms
   * nests log2(n) deep in SQLite's expression tree (its limit is 1000), not n.
   */
  private logical(op: 'and' | 'or', operands: FilterNode[]): Cond {
    const parts = operands.map((o) => this.cond(o));
    const word = op === 'and' ? ' AND ' : ' OR ';
    const join = (lo: number, hi: number): Cond => {
      if (hi - lo === 1) return parts[lo]!;
      const mid = (lo + hi) >>> 1;
      const a = join(lo, mid);
      const b = join(mid, hi);
      return { sql: `(${a.sql}${word}${b.sql})`, params: [...a.params, ...b.params], nullable: a.nullable || b.nullable };
    };
    return join(0, parts.length);
  }

  private operand(node: FilterNode): Operand {
    if (node.kind === 'field') return { kind: 'field', field: this.field(node), node };
    if (node.kind === 'literal') return { kind: 'literal', node };
    return { kind: 'cond', cond: this.cond(node), node };
  }

  private klass(o: Operand): Klass | 'null' {
    if (o.kind === 'field') return fieldKlass(o.field.type);
    if (o.kind === 'literal') return literalKlass(o.node.value);
    return 'bool';
  }

  /** SQL of an operand, converting a string literal to ms when compared with a timestamp. */
  private valueSql(o: Operand, asTime: boolean, against: FieldSpec | undefined): { sql: string; params: Param[]; nullable: boolean } {
    if (o.kind === 'field') return { sql: o.field.column, params: [], nullable: true };
    if (o.kind === 'cond') {
      const c = o.cond;
      return c.nullable
        ? { sql: `coalesce(${c.sql}, 0)`, params: c.params, nullable: false }
        : { sql: `(${c.sql})`, params: c.params, nullable: false };
    }
    const v = o.node.value;
    if (asTime && typeof v === 'string') {
      const ms = parseRfc3339(v);
      if (ms === undefined) {
        throw queryError(
          'filter',
          o.node.pos,
          `${quoteForMessage(v)} is not a time${against ? ` to compare with field "${against.name}"` : ''}`,
          'expected RFC 3339 like "2025-01-18T14:04:02.659Z" (offsets allowed) or a date like "2025-01-18"',
        );
      }
      return { sql: '?', params: [ms], nullable: false };
    }
    return { sql: '?', params: [typeof v === 'boolean' ? (v ? 1 : 0) : v], nullable: v === null };
  }

  private compare(node: CompareNode): Cond {
    const l = this.operand(node.left);
    const r = this.operand(node.right);
    const lk = this.klass(l);
    const rk = this.klass(r);
    const { op } = node;

    if (lk === 'null' || rk === 'null') {
      if (op !== '=' && op !== '!=') {
        throw queryError('filter', node.opPos, `null can only be compared with = or !=, not ${op}`);
      }
      const other = lk === 'null' ? r : l;
      const v = this.valueSql(other, false, undefined);
      return { sql: `${v.sql} ${op === '=' ? 'IS NULL' : 'IS NOT NULL'}`, params: v.params, nullable: false };
    }

    // a string literal against a timestamp field is a time
    let klassL: Klass = lk;
    let klassR: Klass = rk;
    const lTime = klassL === 'timestamp';
    const rTime = klassR === 'timestamp';
    if (lTime && r.kind === 'literal' && rk === 'string') klassR = 'timestamp';
    if (rTime && l.kind === 'literal' && lk === 'string') klassL = 'timestamp';

    if (klassL !== klassR) {
      // blame the operand that does not fit the other; prefer pointing at a literal
      const [anchor, bad] = l.kind === 'literal' && r.kind !== 'literal' ? [r, l] : [l, r];
      const want = EXPECT_FOR[anchor === l ? klassL : klassR];
      const against = anchor.kind === 'field' ? `field "${anchor.field.name}"` : describeOperand(anchor);
      throw queryError('filter', bad.node.pos, `expected ${want} to compare with ${against} but found ${describeOperand(bad)}`);
    }

    const lf = l.kind === 'field' ? l.field : undefined;
    const rf = r.kind === 'field' ? r.field : undefined;
    const a = this.valueSql(l, klassL === 'timestamp', rf);
    const b = this.valueSql(r, klassR === 'timestamp', lf);
    const params = [...a.params, ...b.params];
    const anyNull = a.nullable || b.nullable;
    let sql: string;
    let nullable: boolean;
    if (op === '=') {
      // C#: null == null is true; one null is false (SQL NULL, which means false here)
      sql = a.nullable && b.nullable ? `${a.sql} IS ${b.sql}` : `${a.sql} = ${b.sql}`;
      nullable = anyNull && !(a.nullable && b.nullable);
    } else if (op === '!=') {
      // C#: null != x is true, so IS NOT whenever a side can be NULL
      sql = anyNull ? `${a.sql} IS NOT ${b.sql}` : `${a.sql} <> ${b.sql}`;
      nullable = false;
    } else {
      sql = `${a.sql} ${op} ${b.sql}`;
      nullable = anyNull;
    }
    return { sql, params, nullable };
  }

  private call(node: CallNode): Cond {
    const f = this.field(node.target);
    const name = { contains: 'Contains', startsWith: 'StartsWith', endsWith: 'EndsWith' }[node.method];
    if (f.type !== 'string') {
      throw queryError('filter', node.methodPos, `${name} works on string fields, but field "${f.name}" is ${TYPE_DESC[f.type]}`);
    }
    const arg = node.arg;
    if (arg.kind !== 'literal' || typeof arg.value !== 'string') {
      const found =
        arg.kind === 'literal'
          ? describeOperand({ kind: 'literal', node: arg })
          : arg.kind === 'field'
            ? `field "${arg.name}"`
            : 'a condition';
      throw queryError('filter', arg.pos, `expected a "string" argument for ${name} but found ${found}`);
    }
    const s = arg.value;
    const col = f.column;
    const hooked = node.method === 'contains' ? this.opts.contains?.(f, s) : undefined;
    if (hooked) return { sql: hooked.sql, params: hooked.params, nullable: false };
    // instr() compares bytes (memcmp), is NUL-safe and returns the FIRST match, so
    // `= 1` is "starts with"; an empty needle gives 1 (true) for any non-NULL value.
    if (node.method === 'contains' || s === '') return { sql: `instr(${col}, ?) > 0`, params: [s], nullable: true };
    if (node.method === 'startsWith') return { sql: `instr(${col}, ?) = 1`, params: [s], nullable: true };
    // ends with: compare the trailing bytes (length() and substr() of TEXT stop at NUL; of BLOB they don't)
    return {
      sql: `substr(CAST(${col} AS BLOB), -length(CAST(? AS BLOB))) = CAST(? AS BLOB)`,
      params: [s, s],
      nullable: true,
    };
  }
}

/**
 * Compiles a `filter` value (contract §5) to a SQL boolean expression and its `?` params.
 * Empty/absent filter → `{ where: '1', params: [] }`. A NULL value of `where` means "no match".
 * Throws QueryError (param 'filter', with position) on syntax errors, unknown or
 * non-queryable fields, type mismatches, bad times, and over-long or over-deep input.
 */
export function compileFilter(spec: QueryFields, filter: string | undefined): { where: string; params: Param[] } {
  const { where, params } = compileParsedFilter(spec, filter === undefined ? undefined : parseFilter(filter));
  return { where, params };
}

/** compileFilter of an already parsed filter (undefined: none); keeps the tree beside its SQL. */
function compileParsedFilter(
  spec: QueryFields,
  ast: FilterNode | undefined,
  opts?: CompileOptions,
): { where: string; params: Param[]; filter?: FilterNode } {
  const ix = indexSpec(spec);
  if (!ast) return { where: '1', params: [] };
  const c = new FilterCompiler(ix, opts).cond(ast);
  return { where: c.sql, params: c.params, filter: ast };
}

// ---------------------------------------------------------------------------------------
// sort, select

const isSpaceCode = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13;

/** Splits `a b, c` into comma-separated items of whitespace-separated words, with positions. */
function splitList(param: string, text: string): { words: { w: string; pos: number }[]; pos: number }[] {
  if (text.length > MAX_QUERY_LENGTH) {
    throw queryError(param, MAX_QUERY_LENGTH, `longer than ${MAX_QUERY_LENGTH} characters`);
  }
  const items: { words: { w: string; pos: number }[]; pos: number }[] = [];
  let cur: { words: { w: string; pos: number }[]; pos: number } = { words: [], pos: 0 };
  let i = 0;
  for (;;) {
    while (i < text.length && isSpaceCode(text.charCodeAt(i))) i++;
    if (i >= text.length || text.charCodeAt(i) === 44 /* , */) {
      if (cur.words.length === 0) throw queryError(param, i, 'expected a field name');
      items.push(cur);
      if (i >= text.length) return items;
      i++;
      cur = { words: [], pos: i };
      continue;
    }
    const start = i;
    while (i < text.length && !isSpaceCode(text.charCodeAt(i)) && text.charCodeAt(i) !== 44) i++;
    cur.words.push({ w: text.slice(start, i), pos: start });
  }
}

const isBlank = (s: string | undefined): boolean => s === undefined || s.trim() === '';

/**
 * Compiles a `sort` value (contract §5): comma-separated `Field [asc|desc]`, case-insensitive.
 * Empty/absent → spec.defaultSort. The `id` field is appended ascending as the final
 * tiebreak unless already present. Throws QueryError (param 'sort') on unknown,
 * non-queryable or repeated fields and on a bad direction.
 */
export function compileSort(spec: QueryFields, sort: string | undefined): { orderBy: string; sort: SortKey[] } {
  const ix = indexSpec(spec);
  let keys: SortKey[];
  if (isBlank(sort)) {
    keys = ix.defaultSort;
  } else {
    keys = [];
    const seen = new Set<FieldSpec>();
    for (const item of splitList('sort', sort!)) {
      const [name, dir, extra] = item.words as [{ w: string; pos: number }, ...{ w: string; pos: number }[]];
      const field = lookup(ix, 'sort', name.w, name.pos, true);
      if (seen.has(field)) throw queryError('sort', name.pos, `field "${field.name}" is listed twice`);
      seen.add(field);
      let desc = false;
      if (dir) {
        const d = dir.w.toLowerCase();
        if (d === 'desc' || d === 'descending') desc = true;
        else if (d !== 'asc' && d !== 'ascending') {
          throw queryError('sort', dir.pos, `expected asc or desc after ${field.name} but found ${quoteForMessage(dir.w)}`);
        }
      }
      if (extra)
        throw queryError('sort', extra.pos, `expected "," or the end after ${field.name} ${dir!.w} but found ${quoteForMessage(extra.w)}`);
      keys.push({ field, desc });
    }
    keys = withIdTiebreak(keys, ix.idField);
  }
  return { orderBy: keys.map((k) => `${k.field.column} ${k.desc ? 'DESC' : 'ASC'}`).join(', '), sort: keys };
}

/**
 * Compiles a `select` value (contract §5): comma-separated field names, case-insensitive,
 * any field (also non-queryable ones). Returns those FieldSpecs in spec order, without
 * duplicates; empty/absent → all fields. Throws QueryError (param 'select') on an unknown
 * name or an empty item.
 */
export function compileSelect(spec: QueryFields, select: string | undefined): FieldSpec[] {
  const ix = indexSpec(spec);
  if (isBlank(select)) return [...spec.fields];
  const chosen = new Set<FieldSpec>();
  for (const item of splitList('select', select!)) {
    const [name, extra] = item.words as [{ w: string; pos: number }, ...{ w: string; pos: number }[]];
    const field = lookup(ix, 'select', name.w, name.pos, false);
    if (extra) throw queryError('select', extra.pos, `expected "," or the end after ${field.name} but found ${quoteForMessage(extra.w)}`);
    chosen.add(field);
  }
  return [...chosen].sort((a, b) => ix.order.get(a)! - ix.order.get(b)!);
}

/** A compiled query with the parsed filter it came from (undefined: no filter), for count shortcuts. */
export interface ParsedListQuery extends CompiledQuery {
  filter?: FilterNode;
}

/**
 * Compiles the list parameters (contract §5) `filter`, `sort` and `select` of one request
 * against a resource's QueryFields (contract §5); see compileFilter, compileSort and
 * compileSelect for each part. Throws QueryError (→ HTTP 400, code 3) naming the parameter
 * and position; throws a plain Error only for malformed QueryFields (a bug on our side).
 * The result is computed once per request and handed down (page, total, planner hints).
 * `opts` lets the route answer Contains from an index (CompileOptions).
 */
export function compileListQuery(
  spec: QueryFields,
  q: { filter?: string; sort?: string; select?: string },
  opts?: CompileOptions,
): ParsedListQuery {
  const { where, params, filter } = compileParsedFilter(spec, q.filter === undefined ? undefined : parseFilter(q.filter), opts);
  const { orderBy, sort } = compileSort(spec, q.sort);
  const select = compileSelect(spec, q.select);
  return { where, params, filter, orderBy, sort, select };
}
