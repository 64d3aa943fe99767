/**
 * Property tests of the filter compiler against SQLite:
 * (a) random well-typed filters, rendered to text in random spellings, select exactly the
 *     rows that a plain-JS reference evaluator selects;
 * (b) random and hostile text either compiles (and then runs without SQL error) or throws
 *     QueryError, and never harms the table.
 *
 * The reference evaluator follows the documented semantics (compile.ts): two-valued logic
 * with C# null rules, strings compared by UTF-8 bytes (SQLite BINARY), byte-exact
 * substring methods, timestamps as ms. Rows contain NULLs in every nullable column.
 */
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileListQuery } from '../../../src/server/query/compile.js';
import { QueryError, type ColumnType, type FieldSpec, type QueryFields } from '../../../src/server/query/types.js';

// ---------------------------------------------------------------------------------------
// the table

const spec: QueryFields = {
  fields: [
    { name: 'id', column: 't.id', type: 'int' },
    { name: 'count', column: 't.count', type: 'int' },
    { name: 'amount', column: 't.amount', type: 'number' },
    { name: 'name', column: 't.name', type: 'string' },
    { name: 'code', column: 't.code', type: 'string' },
    { name: 'active', column: 't.active', type: 'bool' },
    { name: 'flag', column: 't.flag', type: 'bool' },
    { name: 'createdAt', column: 't.created_at', type: 'timestamp' },
    { name: 'expireDate', column: 't.expire_date', type: 'timestamp' },
    { name: 'data', column: 't.data', type: 'string', queryable: false },
  ],
  defaultSort: [{ name: 'id', desc: false }],
};
const byType = (t: ColumnType): FieldSpec[] => spec.fields.filter((f) => f.type === t && f.queryable !== false);
const F = {
  numeric: [...byType('int'), ...byType('number')],
  string: byType('string'),
  bool: byType('bool'),
  timestamp: byType('timestamp'),
};
const COLUMN_KEYS: Record<string, keyof Row> = {
  id: 'id',
  count: 'count',
  amount: 'amount',
  name: 'name',
  code: 'code',
  active: 'active',
  flag: 'flag',
  createdAt: 'createdAt',
  expireDate: 'expireDate',
};

interface Row {
  id: number;
  count: number | null;
  amount: number | null;
  name: string | null;
  code: string | null;
  active: boolean | null;
  flag: boolean | null;
  createdAt: number | null;
  expireDate: number | null;
}

const INTS = [-3, -1, 0, 1, 2, 3, 7, 100, 2147483647, -2147483648];
// every value's String() is a plain decimal, as the grammar writes numbers
const DECIMALS = [0, 1.5, -2.25, 0.1, 0.3, 0.30000000000000004, 3, 1234.5678, -0.5, 7];
const ALPHABET = [
  'a',
  'b',
  'ab',
  'A',
  'é',
  'e\u0301',
  'É',
  'ß',
  '😀',
  '"',
  '\\',
  '\u0000',
  '\n',
  ' ',
  '%',
  '_',
  'z',
  '\u007f',
  '\u2028',
  '/',
  "'",
  '\uFF58',
];
const setYear = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): number => {
  const date = new Date(0);
  date.setUTCFullYear(y, mo, d);
  date.setUTCHours(h, mi, s, ms);
  return date.getTime();
};
const TIMES = [
  Date.UTC(2025, 0, 18),
  Date.UTC(2025, 0, 18) + 1,
  Date.UTC(2025, 0, 18, 14, 4, 2, 659),
  Date.UTC(2025, 0, 17, 23, 59, 59, 999),
  Date.UTC(2024, 1, 29),
  Date.UTC(2024, 1, 29, 12),
  0,
  -1,
  setYear(50, 5, 1),
  setYear(9999, 11, 31, 23, 59, 59, 999) - 86_400_000,
];

const strArb = fc.array(fc.constantFrom(...ALPHABET), { maxLength: 4 }).map((a) => a.join(''));
const nullable = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.option(arb, { freq: 6, nil: null });
const rowArb: fc.Arbitrary<Omit<Row, 'id'>> = fc.record({
  count: nullable(fc.constantFrom(...INTS)),
  amount: nullable(fc.oneof(fc.constantFrom(...DECIMALS), fc.constantFrom(...INTS))),
  name: nullable(strArb),
  code: nullable(strArb),
  active: nullable(fc.boolean()),
  flag: nullable(fc.boolean()),
  createdAt: nullable(fc.constantFrom(...TIMES)),
  expireDate: nullable(fc.constantFrom(...TIMES)),
});

// rows are fixed (seeded) so that literals can be drawn from the data: equality and
// substring hits must be common for the properties to discriminate
const rows: Row[] = fc.sample(rowArb, { numRuns: 300, seed: 20250118 }).map((r, i) => ({ id: i + 1, ...r }));
const dataStrings = [...new Set(rows.flatMap((r) => [r.name, r.code]).filter((x): x is string => x !== null && x !== ''))];
/** strings from the data, or code-point slices of them (prefixes, suffixes, infixes) */
const dataStrArb = fc.oneof(
  fc.constantFrom(...dataStrings),
  fc.tuple(fc.constantFrom(...dataStrings), fc.nat(5), fc.nat(5)).map(([x, a, b]) => {
    const cps = [...x];
    const i = a % (cps.length + 1);
    return cps.slice(i, i + ((b % (cps.length + 1 - i)) + 1)).join('');
  }),
);
const literalStrArb = fc.oneof(strArb, dataStrArb);

let db: Database.Database;
let snapshot: string;

function tableSnapshot(): string {
  const schema = db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all();
  const data = db.prepare('SELECT * FROM t ORDER BY id').raw().all();
  return JSON.stringify([schema, data.length, data], (_k, v) => (Buffer.isBuffer(v) ? v.toString('hex') : v));
}

beforeAll(() => {
  db = new Database(':memory:');
  db.exec(`CREATE TABLE t (
    id INTEGER PRIMARY KEY, count INTEGER, amount REAL, name TEXT, code TEXT,
    active INTEGER, flag INTEGER, created_at INTEGER, expire_date INTEGER, data BLOB)`);
  db.exec('CREATE INDEX t_name ON t (name)');
  const ins = db.prepare('INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const b = (v: boolean | null) => (v === null ? null : v ? 1 : 0);
  for (const r of rows) {
    ins.run(r.id, r.count, r.amount, r.name, r.code, b(r.active), b(r.flag), r.createdAt, r.expireDate, Buffer.from([r.id & 255]));
  }
  snapshot = tableSnapshot();
});

afterAll(() => db.close());

function run(filter: string): number[] {
  const c = compileListQuery(spec, { filter });
  return db
    .prepare(`SELECT t.id FROM t WHERE ${c.where} ORDER BY ${c.orderBy}`)
    .pluck()
    .all(...c.params) as number[];
}

// ---------------------------------------------------------------------------------------
// typed ASTs, the reference evaluator, and a renderer

type Op = '=' | '!=' | '<' | '<=' | '>' | '>=';
type Val =
  | { k: 'field'; f: FieldSpec }
  | { k: 'lit'; v: string | number | boolean | null }
  | { k: 'time'; ms: number } // a string literal holding a time
  | { k: 'cond'; c: Cond };
type Cond =
  | { k: 'cmp'; op: Op; l: Val; r: Val }
  | { k: 'call'; m: 'contains' | 'startsWith' | 'endsWith'; f: FieldSpec; s: string }
  | { k: 'bool'; f: FieldSpec }
  | { k: 'blit'; v: boolean }
  | { k: 'not'; c: Cond }
  | { k: 'and' | 'or'; cs: Cond[] };

type JsVal = string | number | boolean | null;

function utf8cmp(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function cmpValues(a: Exclude<JsVal, null>, b: Exclude<JsVal, null>): number {
  if (typeof a === 'string' && typeof b === 'string') return utf8cmp(a, b);
  const x = typeof a === 'boolean' ? Number(a) : (a as number);
  const y = typeof b === 'boolean' ? Number(b) : (b as number);
  return x < y ? -1 : x > y ? 1 : 0;
}

function value(v: Val, row: Row): JsVal {
  switch (v.k) {
    case 'field':
      return row[COLUMN_KEYS[v.f.name]!];
    case 'lit':
      return v.v;
    case 'time':
      return v.ms;
    case 'cond':
      // a bare bool field or literal in value position is that value (a field may be NULL),
      // exactly as the parser reads it; anything else is a two-valued condition
      if (v.c.k === 'bool') return row[COLUMN_KEYS[v.c.f.name]!];
      return evaluate(v.c, row);
  }
}

/** The reference: two-valued logic with C# null rules. */
function evaluate(c: Cond, row: Row): boolean {
  switch (c.k) {
    case 'cmp': {
      const a = value(c.l, row);
      const b = value(c.r, row);
      if (c.op === '=' || c.op === '!=') {
        const eq = a === null || b === null ? a === b : cmpValues(a, b) === 0;
        return c.op === '=' ? eq : !eq;
      }
      if (a === null || b === null) return false;
      const d = cmpValues(a, b);
      return c.op === '<' ? d < 0 : c.op === '<=' ? d <= 0 : c.op === '>' ? d > 0 : d >= 0;
    }
    case 'call': {
      const s = row[COLUMN_KEYS[c.f.name]!] as string | null;
      if (s === null) return false;
      return c.m === 'contains' ? s.includes(c.s) : c.m === 'startsWith' ? s.startsWith(c.s) : s.endsWith(c.s);
    }
    case 'bool':
      return row[COLUMN_KEYS[c.f.name]!] === true;
    case 'blit':
      return c.v;
    case 'not':
      return !evaluate(c.c, row);
    case 'and':
      return c.cs.every((x) => evaluate(x, row));
    case 'or':
      return c.cs.some((x) => evaluate(x, row));
  }
}

/** Small deterministic PRNG so a rendering is reproducible from its seed. */
function prng(seed: number): (n: number) => number {
  let s = seed >>> 0 || 1;
  return (n) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % n;
  };
}

function render(c: Cond, seed: number): string {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[rnd(xs.length)]!;
  const ws = () => pick(['', ' ', ' ', '  ', '\t', '\n']);
  const sp = () => pick([' ', ' ', '  ', '\t', '\n', ' \r\n ']);
  const randCase = (w: string) => [...w].map((ch) => (rnd(3) === 0 ? ch.toUpperCase() : rnd(2) ? ch.toLowerCase() : ch)).join('');

  const str = (s: string): string => {
    let out = '"';
    for (const ch of s) {
      if (ch === '"') out += '\\"';
      else if (ch === '\\') out += '\\\\';
      else if (ch === '\n') out += pick(['\\n', '\n', '\\u000a']);
      else if (ch === '/') out += pick(['/', '\\/']);
      else if (ch === "'") out += pick(["'", "\\'"]);
      else if (ch.charCodeAt(0) < 0x20 || rnd(8) === 0) {
        for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
      } else out += ch;
    }
    return `${out}"`;
  };

  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const time = (ms: number): string => {
    const d = new Date(ms);
    if (d.getUTCHours() + d.getUTCMinutes() + d.getUTCSeconds() + d.getUTCMilliseconds() === 0 && rnd(2)) {
      return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
    }
    const offMin = pick([0, 0, 60, -300, 330, 840, -720, 45, -59]);
    const l = new Date(ms + offMin * 60_000);
    const frac = l.getUTCMilliseconds() === 0 && rnd(2) ? '' : `.${pad(l.getUTCMilliseconds(), 3)}${pick(['', '', '0', '999', '4'])}`;
    const zone =
      offMin === 0 && rnd(3) !== 0
        ? pick(['Z', 'z'])
        : `${offMin < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offMin) / 60))}:${pad(Math.abs(offMin) % 60)}`;
    return `${pad(l.getUTCFullYear(), 4)}-${pad(l.getUTCMonth() + 1)}-${pad(l.getUTCDate())}${pick(['T', 't', ' '])}${pad(l.getUTCHours())}:${pad(l.getUTCMinutes())}:${pad(l.getUTCSeconds())}${frac}${zone}`;
  };

  const field = (f: FieldSpec) => randCase(f.name);
  const opText = (op: Op): string => (op === '=' ? pick(['=', '==']) : op === '!=' ? pick(['!=', '<>']) : op);

  // binding power of a rendered node: or 1, and 2, compare 3, not 4, primary 5
  const bpOf = (x: Cond): number => (x.k === 'or' ? 1 : x.k === 'and' ? 2 : x.k === 'cmp' ? 3 : x.k === 'not' ? 4 : 5);
  const wrap = (text: string) => `(${ws()}${text}${ws()})`;
  const cond = (x: Cond, minBp: number): string => {
    const t = condText(x);
    return bpOf(x) < minBp || rnd(6) === 0 ? wrap(t) : t;
  };
  const val = (v: Val): string => {
    switch (v.k) {
      case 'field':
        return field(v.f);
      case 'lit':
        if (v.v === null) return randCase('null');
        if (typeof v.v === 'boolean') return randCase(String(v.v));
        if (typeof v.v === 'number') return String(v.v);
        return str(v.v);
      case 'time':
        return str(time(v.ms));
      case 'cond':
        return cond(v.c, 4);
    }
  };
  const condText = (x: Cond): string => {
    switch (x.k) {
      case 'cmp':
        return `${val(x.l)}${sp()}${opText(x.op)}${sp()}${val(x.r)}`;
      case 'call':
        return `${field(x.f)}${ws()}.${ws()}${randCase(x.m)}${ws()}(${ws()}${str(x.s)}${ws()})`;
      case 'bool':
        return field(x.f);
      case 'blit':
        return randCase(String(x.v));
      case 'not':
        return rnd(2) ? `!${ws()}${cond(x.c, 4)}` : `${randCase('not')}${sp()}${cond(x.c, 4)}`;
      case 'and':
      case 'or': {
        const sym = x.k === 'and' ? '&&' : '||';
        const parts = x.cs.map((y) => cond(y, x.k === 'and' ? 3 : 2));
        return parts.reduce((acc, p) => `${acc}${rnd(2) ? `${ws()}${sym}${ws()}` : `${sp()}${randCase(x.k)}${sp()}`}${p}`);
      }
    }
  };
  return `${ws()}${condText(c)}${ws()}`;
}

// ---------------------------------------------------------------------------------------
// generators of well-typed ASTs

const opArb = fc.constantFrom<Op>('=', '!=', '<', '<=', '>', '>=');
const eqOpArb = fc.constantFrom<Op>('=', '!=');
const fieldOf = (fs: FieldSpec[]) => fc.constantFrom(...fs).map((f): Val => ({ k: 'field', f }));
const swap = (l: Val, r: Val, s: boolean): [Val, Val] => (s ? [r, l] : [l, r]);

const numericVal: fc.Arbitrary<Val> = fc.oneof(
  fieldOf(F.numeric),
  fc.constantFrom(...INTS, ...DECIMALS).map((v): Val => ({ k: 'lit', v })),
);
const stringVal: fc.Arbitrary<Val> = fc.oneof(
  fieldOf(F.string),
  literalStrArb.map((v): Val => ({ k: 'lit', v })),
);
const timeVal: fc.Arbitrary<Val> = fc.oneof(
  fieldOf(F.timestamp),
  fc.constantFrom(...TIMES).map((ms): Val => ({ k: 'time', ms })),
);

const { cond: condArb } = fc.letrec<{ cond: Cond; boolVal: Val }>((tie) => ({
  cond: fc.oneof(
    { maxDepth: 4, depthIdentifier: 'cond' },
    // leaves first: chosen when the depth limit is reached
    fc.record({ op: opArb, l: numericVal, r: numericVal }).map(({ op, l, r }): Cond => ({ k: 'cmp', op, l, r })),
    fc.record({ op: opArb, l: stringVal, r: stringVal }).map(({ op, l, r }): Cond => ({ k: 'cmp', op, l, r })),
    fc.record({ op: opArb, f: fieldOf(F.timestamp), o: timeVal, s: fc.boolean() }).map(({ op, f, o, s }): Cond => {
      const [l, r] = swap(f, o, s);
      return { k: 'cmp', op, l, r };
    }),
    fc
      .record({ op: eqOpArb, f: fieldOf([...F.numeric, ...F.string, ...F.bool, ...F.timestamp]), s: fc.boolean() })
      .map(({ op, f, s }): Cond => {
        const [l, r] = swap(f, { k: 'lit', v: null }, s);
        return { k: 'cmp', op, l, r };
      }),
    fc
      .record({
        m: fc.constantFrom('contains' as const, 'startsWith' as const, 'endsWith' as const),
        f: fc.constantFrom(...F.string),
        s: literalStrArb,
      })
      .map(({ m, f, s }): Cond => ({ k: 'call', m, f, s })),
    fc.constantFrom(...F.bool).map((f): Cond => ({ k: 'bool', f })),
    fc.boolean().map((v): Cond => ({ k: 'blit', v })),
    tie('cond').map((c): Cond => ({ k: 'not', c })),
    fc.array(tie('cond'), { minLength: 2, maxLength: 4 }).map((cs): Cond => ({ k: 'and', cs })),
    fc.array(tie('cond'), { minLength: 2, maxLength: 4 }).map((cs): Cond => ({ k: 'or', cs })),
    fc.record({ op: opArb, l: tie('boolVal'), r: tie('boolVal') }).map(({ op, l, r }): Cond => ({ k: 'cmp', op, l, r })),
  ),
  boolVal: fc.oneof(
    { maxDepth: 3, depthIdentifier: 'cond' },
    fieldOf(F.bool),
    fc.boolean().map((v): Val => ({ k: 'lit', v })),
    tie('cond').map((c): Val => ({ k: 'cond', c })),
  ),
}));

const NUM_RUNS = Number(process.env.QUERY_PROPERTY_RUNS ?? 400);

describe('property: compiled filters select what the reference evaluator selects', () => {
  it('random well-typed filters', () => {
    let nonTrivial = 0;
    fc.assert(
      fc.property(condArb, fc.integer(), (ast, seed) => {
        const text = render(ast, seed);
        if (text.length > 4096) return; // outside the language's limits, not a counterexample
        const got = run(text);
        const want = rows.filter((r) => evaluate(ast, r)).map((r) => r.id);
        if (want.length > 0 && want.length < rows.length) nonTrivial++;
        expect(got, text).toEqual(want);
      }),
      { numRuns: NUM_RUNS },
    );
    // the generators must actually discriminate rows, or the property proves little
    expect(nonTrivial).toBeGreaterThan(NUM_RUNS / 4);
  });

  it('every single comparison and method shape, plain and negated', () => {
    const leaf = fc.oneof(
      fc.record({ op: opArb, l: numericVal, r: numericVal }),
      fc.record({ op: opArb, l: stringVal, r: stringVal }),
      fc.record({ op: opArb, l: fieldOf(F.timestamp), r: timeVal }),
      fc.record({
        op: opArb,
        l: fieldOf(F.bool),
        r: fc.oneof(
          fieldOf(F.bool),
          fc.boolean().map((v): Val => ({ k: 'lit', v })),
        ),
      }),
    );
    const method = fc
      .record({
        m: fc.constantFrom('contains' as const, 'startsWith' as const, 'endsWith' as const),
        f: fc.constantFrom(...F.string),
        s: literalStrArb,
      })
      .map(({ m, f, s }): Cond => ({ k: 'call', m, f, s }));
    const shape = fc.oneof(
      leaf.map(({ op, l, r }): Cond => ({ k: 'cmp', op, l, r })),
      method,
    );
    fc.assert(
      fc.property(shape, fc.boolean(), fc.integer(), (c, negate, seed) => {
        const ast: Cond = negate ? { k: 'not', c } : c;
        const text = render(ast, seed);
        expect(run(text), text).toEqual(rows.filter((x) => evaluate(ast, x)).map((x) => x.id));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('table is untouched', () => {
    expect(tableSnapshot()).toBe(snapshot);
  });
});

// ---------------------------------------------------------------------------------------
// hostile input

const INJECTIONS = [
  'Name = "" or 1=1 --',
  'Name = "" or 1=1',
  '"); DROP TABLE t; --',
  'Name = ""); DROP TABLE t; --"',
  'Name = "x"; DROP TABLE t',
  "Name = 'x' OR '1'='1'",
  'Name = "\\"); DELETE FROM t; --"',
  'Name.Contains("%") or Name.Contains("_")',
  'Name.StartsWith("\') OR 1=1 --")',
  'Id = 1 UNION SELECT name FROM sqlite_master',
  'Id = (SELECT 1)',
  'Id = 1 /* comment */',
  'Id = 0x10',
  'Id = 1e999',
  'Name = "\\u0000"',
  'Name = "\u0000"',
  'Name = "unterminated',
  '((((Id = 1)',
  'Id = 1))))',
  'Name.Contains("x"',
  'data = "x"',
  'sqlite_master.Name = "t"',
  't.id = 1',
  'Id = ?',
  'Id = ?1',
  'Id = :a',
  'Id = @a',
  'Id = $a',
  'id = `x`',
  'Name = [x]',
  'Name glob "*"',
  'Name like "%"',
  'Name is null',
  'Name in ("a")',
  '('.repeat(3000) + 'Active' + ')'.repeat(1000),
  '!'.repeat(4096),
  'not '.repeat(1000),
  Array.from({ length: 455 }, () => 'Active').join('||'),
  'Name.Contains("' + '\\u0041'.repeat(600) + '")',
  '\uD800',
  'Name = "\uD800"',
  'Name = "\uDC00\uD800"',
  '\u202E Name = "x"',
  'Ｎａｍｅ = "x"',
  'Name\u00a0= "x"',
];

const TOKENS = [
  'Id',
  'count',
  'Amount',
  'NAME',
  'code',
  'active',
  'Flag',
  'createdAt',
  'ExpireDate',
  'data',
  'nope',
  't',
  'sqlite_master',
  '=',
  '==',
  '!=',
  '<>',
  '<',
  '<=',
  '>',
  '>=',
  '&&',
  '||',
  '!',
  '&',
  '|',
  'and',
  'OR',
  'not',
  '(',
  ')',
  '.',
  ',',
  ';',
  '--',
  '/*',
  '*/',
  'Contains',
  'startsWith',
  'ENDSWITH',
  'Length',
  '"x"',
  '""',
  '"2025-01-18"',
  '"2025-01-18T14:04:02.659+01:00"',
  '"bad"',
  '"',
  "'",
  '\\',
  '1',
  '-1',
  '1.5',
  '0',
  '2147483648',
  '1e5',
  '.5',
  'true',
  'False',
  'NULL',
  'select',
  'drop',
  'table',
  ' ',
  '\n',
  '\t',
  '😀',
  '\u0000',
];
const tokenSoup = fc
  .array(fc.constantFrom(...TOKENS), { maxLength: 30 })
  .chain((ts) =>
    fc.array(fc.constantFrom('', ' '), { minLength: ts.length, maxLength: ts.length }).map((sps) => ts.map((t, i) => t + sps[i]).join('')),
  );
/** a valid filter with a few random edits */
const mutated = fc
  .tuple(condArb, fc.integer(), fc.array(fc.tuple(fc.nat(), fc.nat(3), fc.constantFrom(...TOKENS, '"', '(', ')', '\\')), { maxLength: 4 }))
  .map(([ast, seed, edits]) => {
    let s = render(ast, seed);
    for (const [at, kind, tok] of edits) {
      const i = s.length === 0 ? 0 : at % s.length;
      s =
        kind === 0
          ? s.slice(0, i) + s.slice(i + 1)
          : kind === 1
            ? s.slice(0, i) + tok + s.slice(i)
            : s.slice(0, i) + tok + s.slice(i + tok.length);
    }
    return s;
  });

const hostile = fc.oneof(
  fc.constantFrom(...INJECTIONS),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 80 }),
  fc.string({ unit: fc.constantFrom(...'()"\\!=<>&|.,; \'-0123456789abnotrud'.split('')), maxLength: 120 }),
  tokenSoup,
  mutated,
);

function tryQuery(q: { filter?: string; sort?: string; select?: string }): 'ok' | 'rejected' {
  let c;
  try {
    c = compileListQuery(spec, q);
  } catch (e) {
    if (e instanceof QueryError) {
      expect(e.message.startsWith(`${e.param}: `)).toBe(true);
      expect(e.message).toContain(`at position ${e.position}`);
      expect(e.position).toBeGreaterThanOrEqual(0);
      return 'rejected';
    }
    throw e; // not a QueryError: the property fails
  }
  const cols = c.select.map((f) => f.column).join(', ');
  db.prepare(`SELECT ${cols} FROM t WHERE (${c.where}) ORDER BY ${c.orderBy}`).all(...c.params);
  db.prepare(`SELECT count(*) FROM t WHERE 1 AND (${c.where})`)
    .pluck()
    .get(...c.params);
  return 'ok';
}

describe('property: hostile input compiles and runs, or is a QueryError', () => {
  it('the injection corpus', () => {
    // only these are the language (each literal is a parameter, so harmless); everything
    // else must be rejected, not reinterpreted
    const valid = new Set([
      'Name = "" or 1=1',
      'Name = "\\"); DELETE FROM t; --"',
      'Name.Contains("%") or Name.Contains("_")',
      'Name.StartsWith("\') OR 1=1 --")',
      'Name = "\\u0000"',
      'Name = "\u0000"',
      INJECTIONS[37],
      INJECTIONS[38],
    ]);
    for (const filter of INJECTIONS) expect(tryQuery({ filter }), filter.slice(0, 60)).toBe(valid.has(filter) ? 'ok' : 'rejected');
    expect(tableSnapshot()).toBe(snapshot);
  });

  it('random filters', () => {
    fc.assert(
      fc.property(hostile, (filter) => {
        tryQuery({ filter });
      }),
      { numRuns: NUM_RUNS * 3 },
    );
    expect(tableSnapshot()).toBe(snapshot);
  });

  it('random sort and select', () => {
    const listish = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 60 }),
      fc
        .array(
          fc.tuple(fc.constantFrom(...TOKENS, 'asc', 'DESC', 'descending', 'id', 'Name', ''), fc.constantFrom(',', ' ', ', ', ' , ', '')),
          { maxLength: 8 },
        )
        .map((xs) => xs.map(([a, b]) => a + b).join('')),
    );
    fc.assert(
      fc.property(listish, listish, (sort, select) => {
        tryQuery({ sort, select });
      }),
      { numRuns: NUM_RUNS * 2 },
    );
    expect(tableSnapshot()).toBe(snapshot);
  });
});
