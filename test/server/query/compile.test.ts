import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { compileFilter, compileListQuery, compileSelect, compileSort } from '../../../src/server/query/compile.js';
import { parseRfc3339 } from '../../../src/time.js';
import { QueryError, type QueryFields } from '../../../src/server/query/types.js';
import { logSource } from '../../../src/server/routes/log.js';

// the service's own log fields, so these tests follow the route if it changes
const logSpec: QueryFields = logSource.spec;

const keySpec: QueryFields = {
  fields: [
    { name: 'id', column: 'k.id', type: 'int' },
    { name: 'name', column: 'k.name', type: 'string' },
    { name: 'permissions', column: 'k.permissions', type: 'int' },
    { name: 'price', column: 'k.price', type: 'number' },
    { name: 'createdAt', column: 'k.created_at', type: 'timestamp' },
    { name: 'expireDate', column: 'k.expire_date', type: 'timestamp' },
    { name: 'revoked', column: 'k.revoked', type: 'bool' },
    { name: 'blob', column: 'k.blob', type: 'string', queryable: false },
  ],
  defaultSort: [{ name: 'id', desc: false }],
};

const f = (spec: QueryFields, filter: string) => compileFilter(spec, filter);

function qerr(fn: () => unknown): QueryError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(QueryError);
    return e as QueryError;
  }
  throw new Error('expected a QueryError');
}

describe('compileListQuery', () => {
  it('compiles the contract example with params only', () => {
    const c = compileListQuery(logSpec, { filter: 'Level="Warning" and Message.Contains("activation")' });
    expect(c.where).toBe('(l.level = ? AND instr(l.message, ?) > 0)');
    expect(c.params).toEqual(['Warning', 'activation']);
    expect(c.orderBy).toBe('l.time_stamp DESC, l.id DESC');
    expect(c.sort.map((k) => [k.field.name, k.desc])).toEqual([
      ['timeStamp', true],
      ['id', true],
    ]);
    expect(c.select).toEqual(logSpec.fields);
  });

  it('defaults: no filter is `1`, default sort, all fields', () => {
    for (const q of [{}, { filter: '', sort: '', select: '' }, { filter: '  ', sort: ' ', select: '\t' }]) {
      const c = compileListQuery(keySpec, q);
      expect(c.where).toBe('1');
      expect(c.params).toEqual([]);
      expect(c.orderBy).toBe('k.id ASC');
      expect(c.select).toHaveLength(keySpec.fields.length);
    }
  });

  it('names the parameter in each error', () => {
    expect(qerr(() => compileListQuery(logSpec, { filter: 'x' })).param).toBe('filter');
    expect(qerr(() => compileListQuery(logSpec, { sort: 'x' })).param).toBe('sort');
    expect(qerr(() => compileListQuery(logSpec, { select: 'x' })).param).toBe('select');
  });

  it('never puts literal text into the SQL', () => {
    const evil = `"); DROP TABLE log; --`;
    const c = f(logSpec, `Message = ${JSON.stringify(evil)} or Level.StartsWith("' OR 1=1 --") or Level.EndsWith("%_")`);
    expect(c.where).not.toMatch(/DROP|OR 1=1|%_/);
    expect(c.params).toContain(evil);
  });
});

describe('filter: comparisons and types', () => {
  it.each([
    ['Id = 5', 'k.id = ?', [5]],
    ['Id == 5', 'k.id = ?', [5]],
    ['Id != 5', 'k.id IS NOT ?', [5]],
    ['Id <> 5', 'k.id IS NOT ?', [5]],
    ['Id < 5', 'k.id < ?', [5]],
    ['Id <= 5', 'k.id <= ?', [5]],
    ['Id > 5', 'k.id > ?', [5]],
    ['Id >= 5', 'k.id >= ?', [5]],
    ['5 < Id', '? < k.id', [5]],
    ['Permissions = 2.5', 'k.permissions = ?', [2.5]],
    ['Price >= -1.25', 'k.price >= ?', [-1.25]],
    ['Price = Permissions', 'k.price IS k.permissions', []],
    ['Price != Permissions', 'k.price IS NOT k.permissions', []],
    ['Name = "a\\"b"', 'k.name = ?', ['a"b']],
    ['Name < "m"', 'k.name < ?', ['m']],
    ['Revoked', 'k.revoked = 1', []],
    ['!Revoked', 'NOT coalesce(k.revoked = 1, 0)', []],
    ['Revoked = true', 'k.revoked = ?', [1]],
    ['Revoked == FALSE', 'k.revoked = ?', [0]],
    ['Revoked != false', 'k.revoked IS NOT ?', [0]],
    ['true', '?', [1]],
    ['false', '?', [0]],
    ['Revoked = (Id = 1)', 'k.revoked = coalesce(k.id = ?, 0)', [1]],
    ['(Id = 1) = false', 'coalesce(k.id = ?, 0) = ?', [1, 0]],
    ['(Id != 1) = false', '(k.id IS NOT ?) = ?', [1, 0]],
    ['"a" = "a"', '? <> ?'.replace('<>', '='), ['a', 'a']],
    ['1 != 2', '? <> ?', [1, 2]],
    ['ExpireDate = CreatedAt', 'k.expire_date IS k.created_at', []],
    ['ExpireDate < CreatedAt', 'k.expire_date < k.created_at', []],
  ])('%s', (filter, where, params) => {
    expect(f(keySpec, filter)).toEqual({ where, params });
  });

  it('matches field names case-insensitively', () => {
    for (const name of ['timeStamp', 'TimeStamp', 'TIMESTAMP', 'timestamp']) {
      expect(f(logSpec, `${name} > "2025-01-01"`).where).toBe('l.time_stamp > ?');
    }
    expect(f(logSpec, 'LEVEL = "x" And message.ENDSWITH("y")').where).toContain('l.level = ?');
  });

  it.each([
    [
      'Lvl = 1',
      0,
      'filter: unknown field "Lvl" at position 0; fields are: id, message, messageTemplate, level, timeStamp, exception, properties',
    ],
    ['Level = 1', 8, 'filter: expected a "string" to compare with field "level" but found the number 1 at position 8'],
    ['1 = Level', 0, 'filter: expected a "string" to compare with field "level" but found the number 1 at position 0'],
    ['Id = "1"', 5, 'filter: expected a number to compare with field "id" but found the string "1" at position 5'],
    ['Id = true', 5, 'filter: expected a number to compare with field "id" but found true at position 5'],
    ['Id = Level', 5, 'filter: expected a number to compare with field "id" but found field "level" (string) at position 5'],
    [
      'TimeStamp > 5',
      12,
      'filter: expected a time string like "2025-01-18T14:04:02.659Z" or "2025-01-18" to compare with field "timeStamp" but found the number 5 at position 12',
    ],
    [
      'TimeStamp > Level',
      12,
      'filter: expected a time string like "2025-01-18T14:04:02.659Z" or "2025-01-18" to compare with field "timeStamp" but found field "level" (string) at position 12',
    ],
    [
      'TimeStamp > "yesterday"',
      12,
      'filter: "yesterday" is not a time to compare with field "timeStamp" at position 12; expected RFC 3339 like "2025-01-18T14:04:02.659Z" (offsets allowed) or a date like "2025-01-18"',
    ],
    [
      'TimeStamp > "2025-02-30"',
      12,
      'filter: "2025-02-30" is not a time to compare with field "timeStamp" at position 12; expected RFC 3339 like "2025-01-18T14:04:02.659Z" (offsets allowed) or a date like "2025-01-18"',
    ],
    ['Level', 0, 'filter: expected a condition but field "level" is a string at position 0; compare it, e.g. level = "…"'],
    ['Id', 0, 'filter: expected a condition but field "id" is an integer at position 0; compare it, e.g. id = …'],
    ['"x"', 0, 'filter: expected a condition but found the string "x" at position 0'],
    ['Id = 1 and 5', 11, 'filter: expected a condition but found the number 5 at position 11'],
    [
      'not Level = "x"',
      4,
      'filter: "not" needs a condition but field "level" is a string at position 4; not binds tighter than comparisons: write not (level = …)',
    ],
    ['(Id = 1) = 1', 11, 'filter: expected true, false or a condition to compare with a condition but found the number 1 at position 11'],
    ['Level < null', 6, 'filter: null can only be compared with = or !=, not < at position 6'],
    ['Id.Contains("1")', 3, 'filter: Contains works on string fields, but field "id" is an integer at position 3'],
    ['TimeStamp.StartsWith("2025")', 10, 'filter: StartsWith works on string fields, but field "timeStamp" is a timestamp at position 10'],
    ['Level.Contains(1)', 15, 'filter: expected a "string" argument for Contains but found the number 1 at position 15'],
    ['Level.EndsWith(null)', 15, 'filter: expected a "string" argument for EndsWith but found null at position 15'],
    ['Level.EndsWith(Message)', 15, 'filter: expected a "string" argument for EndsWith but found field "Message" at position 15'],
    ['Level.EndsWith(Id = 1)', 15, 'filter: expected a "string" argument for EndsWith but found a condition at position 15'],
  ])('%s → 400', (filter, pos, message) => {
    const e = qerr(() => f(logSpec, filter));
    expect(e.message).toBe(message);
    expect(e.position).toBe(pos);
  });

  it('rejects non-queryable fields in filter and sort but allows them in select', () => {
    const e = qerr(() => f(keySpec, 'Blob = "x"'));
    expect(e.message).toBe(
      'filter: field "blob" can\'t be filtered on at position 0; fields that can: id, name, permissions, price, createdAt, expireDate, revoked',
    );
    const s = qerr(() => compileSort(keySpec, 'blob'));
    expect(s.message).toMatch(/^sort: field "blob" can't be sorted by at position 0/);
    expect(compileSelect(keySpec, 'blob').map((x) => x.name)).toEqual(['blob']);
  });

  it('quotes and shortens hostile names in messages', () => {
    const e = qerr(() => compileSort(keySpec, 'x'.repeat(100)));
    expect(e.message).toBe(
      `sort: unknown field "${'x'.repeat(40)}…" at position 0; fields are: id, name, permissions, price, createdAt, expireDate, revoked`,
    );
  });
});

describe('filter: null', () => {
  it.each([
    ['ExpireDate = null', 'k.expire_date IS NULL'],
    ['ExpireDate == null', 'k.expire_date IS NULL'],
    ['null = ExpireDate', 'k.expire_date IS NULL'],
    ['ExpireDate != null', 'k.expire_date IS NOT NULL'],
    ['ExpireDate <> NULL', 'k.expire_date IS NOT NULL'],
    ['Name = null', 'k.name IS NULL'],
    ['Revoked = null', 'k.revoked IS NULL'],
  ])('%s', (filter, where) => {
    expect(f(keySpec, filter)).toEqual({ where, params: [] });
  });

  it('null = null is a constant', () => {
    expect(f(keySpec, 'null = null')).toEqual({ where: '? IS NULL', params: [null] });
  });
});

describe('filter: logic', () => {
  it.each([
    ['Id = 1 and Id = 2', '(k.id = ? AND k.id = ?)', [1, 2]],
    ['Id = 1 && Id = 2', '(k.id = ? AND k.id = ?)', [1, 2]],
    ['Id = 1 or Id = 2', '(k.id = ? OR k.id = ?)', [1, 2]],
    ['Id = 1 || Id = 2', '(k.id = ? OR k.id = ?)', [1, 2]],
    ['Id = 1 or Id = 2 and Id = 3', '(k.id = ? OR (k.id = ? AND k.id = ?))', [1, 2, 3]],
    ['(Id = 1 or Id = 2) and Id = 3', '((k.id = ? OR k.id = ?) AND k.id = ?)', [1, 2, 3]],
    ['not (Id = 1)', 'NOT coalesce(k.id = ?, 0)', [1]],
    ['not (Id != 1)', 'NOT (k.id IS NOT ?)', [1]],
    ['not Revoked and Id = 1', '(NOT coalesce(k.revoked = 1, 0) AND k.id = ?)', [1]],
    ['Id = 1 or Id = 2 or Id = 3 or Id = 4', '((k.id = ? OR k.id = ?) OR (k.id = ? OR k.id = ?))', [1, 2, 3, 4]],
  ])('%s', (filter, where, params) => {
    expect(f(keySpec, filter)).toEqual({ where, params });
  });
});

describe('filter: string methods', () => {
  it.each([
    ['Name.Contains("a%_")', 'instr(k.name, ?) > 0', ['a%_']],
    ['name.contains("x")', 'instr(k.name, ?) > 0', ['x']],
    ['Name.StartsWith("x")', 'instr(k.name, ?) = 1', ['x']],
    ['Name.startsWith("x")', 'instr(k.name, ?) = 1', ['x']],
    ['Name.EndsWith("x")', 'substr(CAST(k.name AS BLOB), -length(CAST(? AS BLOB))) = CAST(? AS BLOB)', ['x', 'x']],
    ['Name.EndsWith("")', 'instr(k.name, ?) > 0', ['']],
    ['!Name.Contains("x")', 'NOT coalesce(instr(k.name, ?) > 0, 0)', ['x']],
  ])('%s', (filter, where, params) => {
    expect(f(keySpec, filter)).toEqual({ where, params });
  });

  it('are case-sensitive, wildcard-free and NUL-safe in SQLite', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE k (id INTEGER PRIMARY KEY, name TEXT)');
    const names = ['abc', 'ABC', 'a%c', 'a_c', 'x\u0000y', 'é😀', '', null];
    const ins = db.prepare('INSERT INTO k (id, name) VALUES (?, ?)');
    names.forEach((n, i) => ins.run(i + 1, n));
    const ids = (filter: string) => {
      const c = f(keySpec, filter);
      return (
        db
          .prepare(`SELECT k.id FROM k WHERE ${c.where} ORDER BY k.id`)
          .pluck()
          .all(...c.params) as number[]
      ).map((i) => names[i - 1]);
    };
    expect(ids('Name.Contains("b")')).toEqual(['abc']);
    expect(ids('Name.Contains("%")')).toEqual(['a%c']);
    expect(ids('Name.Contains("_")')).toEqual(['a_c']);
    expect(ids('Name.StartsWith("a")')).toEqual(['abc', 'a%c', 'a_c']);
    expect(ids('Name.StartsWith("A")')).toEqual(['ABC']);
    expect(ids('Name.EndsWith("c")')).toEqual(['abc', 'a%c', 'a_c']);
    expect(ids('Name.EndsWith("y")')).toEqual(['x\u0000y']);
    expect(ids('Name.StartsWith("x\\u0000")')).toEqual(['x\u0000y']);
    expect(ids('Name.EndsWith("\\u0000y")')).toEqual(['x\u0000y']);
    expect(ids('Name.EndsWith("😀")')).toEqual(['é😀']);
    expect(ids('Name.EndsWith("xabc")')).toEqual([]);
    expect(ids('Name.EndsWith("")')).toEqual(names.filter((n) => n !== null));
    expect(ids('!Name.Contains("a")')).toEqual(['ABC', 'x\u0000y', 'é😀', '', null]);
  });
});

describe('filter: timestamps', () => {
  it.each([
    ['2025-01-18', Date.UTC(2025, 0, 18)],
    ['2025-01-18T14:04:02.659Z', Date.UTC(2025, 0, 18, 14, 4, 2, 659)],
    ['2025-01-18t14:04:02.659z', Date.UTC(2025, 0, 18, 14, 4, 2, 659)],
    ['2025-01-18 14:04:02Z', Date.UTC(2025, 0, 18, 14, 4, 2)],
    ['2025-01-18T14:04:02Z', Date.UTC(2025, 0, 18, 14, 4, 2)],
    ['2025-01-18T14:04:02.6Z', Date.UTC(2025, 0, 18, 14, 4, 2, 600)],
    ['2025-01-18T14:04:02.6599999Z', Date.UTC(2025, 0, 18, 14, 4, 2, 659)],
    ['2025-01-18T15:04:02.659+01:00', Date.UTC(2025, 0, 18, 14, 4, 2, 659)],
    ['2025-01-18T09:34:02.659-04:30', Date.UTC(2025, 0, 18, 14, 4, 2, 659)],
    ['2025-01-18T00:00:00+00:00', Date.UTC(2025, 0, 18)],
    ['2025-01-18T00:00:00-00:00', Date.UTC(2025, 0, 18)],
    ['2025-01-01T00:30:00+01:00', Date.UTC(2024, 11, 31, 23, 30)],
    ['2024-02-29', Date.UTC(2024, 1, 29)],
    ['2000-02-29', Date.UTC(2000, 1, 29)],
    ['1969-12-31T23:59:59.999Z', -1],
    ['0050-06-01', -60576249600000], // years 0..99 are not 1900..1999
  ])('%s', (text, ms) => {
    expect(parseRfc3339(text)).toBe(ms);
    expect(f(logSpec, `TimeStamp >= "${text}"`)).toEqual({ where: 'l.time_stamp >= ?', params: [ms] });
    expect(f(logSpec, `"${text}" < TimeStamp`)).toEqual({ where: '? < l.time_stamp', params: [ms] });
  });

  it.each([
    '2025-1-18',
    '2025-01-18T14:04Z',
    '2025-01-18T14:04:02',
    '2025-13-01',
    '2025-00-10',
    '2025-02-29',
    '1900-02-29',
    '2025-04-31',
    '2025-01-18T24:00:00Z',
    '2025-01-18T23:60:00Z',
    '2025-01-18T23:59:60Z',
    '2025-01-18T10:00:00+24:00',
    '2025-01-18T10:00:00+01',
    '2025-01-18T10:00:00.Z',
    ' 2025-01-18',
    '2025-01-18 ',
    '',
    'now',
    '+2025-01-18',
    '１２３４-01-01',
  ])('rejects %j', (text) => {
    expect(parseRfc3339(text)).toBeUndefined();
    expect(qerr(() => f(logSpec, `TimeStamp = ${JSON.stringify(text)}`)).position).toBe(12);
  });

  it('a string literal against a string field stays a string', () => {
    expect(f(logSpec, 'Level = "2025-01-18"').params).toEqual(['2025-01-18']);
  });
});

describe('sort', () => {
  it.each([
    ['TimeStamp desc, Id', 'l.time_stamp DESC, l.id ASC'],
    ['timestamp DESC,id', 'l.time_stamp DESC, l.id ASC'],
    ['Level', 'l.level ASC, l.id ASC'],
    ['Level asc', 'l.level ASC, l.id ASC'],
    ['Level Ascending', 'l.level ASC, l.id ASC'],
    ['Level descending', 'l.level DESC, l.id ASC'],
    ['  Level   desc  ,  Message  ', 'l.level DESC, l.message ASC, l.id ASC'],
    ['Id desc', 'l.id DESC'],
    ['Id desc, Level', 'l.id DESC, l.level ASC'],
  ])('%s', (sort, orderBy) => {
    expect(compileSort(logSpec, sort).orderBy).toBe(orderBy);
  });

  it('returns the keys with the id tiebreak', () => {
    expect(compileSort(logSpec, 'Level desc').sort.map((k) => `${k.field.name}:${k.desc}`)).toEqual(['level:true', 'id:false']);
  });

  it.each([
    [
      'Lvl',
      0,
      'sort: unknown field "Lvl" at position 0; fields are: id, message, messageTemplate, level, timeStamp, exception, properties',
    ],
    ['Level, level', 7, 'sort: field "level" is listed twice at position 7'],
    ['Level down', 6, 'sort: expected asc or desc after level but found "down" at position 6'],
    ['Level desc x', 11, 'sort: expected "," or the end after level desc but found "x" at position 11'],
    ['Level,', 6, 'sort: expected a field name at position 6'],
    [',Level', 0, 'sort: expected a field name at position 0'],
    ['Level,,Id', 6, 'sort: expected a field name at position 6'],
    [
      'Level;drop',
      0,
      'sort: unknown field "Level;drop" at position 0; fields are: id, message, messageTemplate, level, timeStamp, exception, properties',
    ],
  ])('%j → 400', (sort, pos, message) => {
    const e = qerr(() => compileSort(logSpec, sort));
    expect(e.message).toBe(message);
    expect(e.position).toBe(pos);
    expect(e.param).toBe('sort');
  });

  it('throws a plain Error for a spec whose default sort names an unknown field', () => {
    const bad: QueryFields = { fields: [{ name: 'id', column: 'id', type: 'int' }], defaultSort: [{ name: 'nope', desc: false }] };
    expect(() => compileSort(bad, undefined)).toThrow(/QueryFields/);
  });
});

describe('select', () => {
  it('returns fields in spec order, deduplicated, case-insensitively', () => {
    expect(compileSelect(logSpec, 'Level, id, LEVEL , timestamp').map((x) => x.name)).toEqual(['id', 'level', 'timeStamp']);
  });

  it.each([
    [
      'Lvl',
      0,
      'select: unknown field "Lvl" at position 0; fields are: id, message, messageTemplate, level, timeStamp, exception, properties',
    ],
    [
      'Id, Lvl',
      4,
      'select: unknown field "Lvl" at position 4; fields are: id, message, messageTemplate, level, timeStamp, exception, properties',
    ],
    ['Id Level', 3, 'select: expected "," or the end after id but found "Level" at position 3'],
    ['Id,', 3, 'select: expected a field name at position 3'],
  ])('%j → 400', (select, pos, message) => {
    const e = qerr(() => compileSelect(logSpec, select));
    expect(e.message).toBe(message);
    expect(e.position).toBe(pos);
    expect(e.param).toBe('select');
  });

  it('caps the length of sort and select', () => {
    expect(qerr(() => compileSelect(logSpec, 'id,'.repeat(2000))).message).toMatch(/^select: longer than 4096/);
    expect(qerr(() => compileSort(logSpec, 'id,'.repeat(2000))).message).toMatch(/^sort: longer than 4096/);
  });
});

describe('limits reach SQLite safely', () => {
  it('a maximal flat chain stays under SQLite expression depth', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE k (id INTEGER PRIMARY KEY, revoked INTEGER)');
    db.prepare('INSERT INTO k VALUES (1, 1), (2, 0)').run();
    const tiny: QueryFields = {
      fields: [
        { name: 'id', column: 'k.id', type: 'int' },
        { name: 'r', column: 'k.revoked', type: 'bool' },
      ],
      defaultSort: [],
    };
    const filter = Array.from({ length: 1365 }, () => 'r').join('||');
    expect(filter.length).toBeLessThanOrEqual(4096);
    const c = f(tiny, filter);
    expect(
      db
        .prepare(`SELECT k.id FROM k WHERE ${c.where}`)
        .pluck()
        .all(...c.params),
    ).toEqual([1]);
    const many = Array.from({ length: 600 }, (_, i) => `Id=${i}`).join('|| ');
    const c2 = f(keySpec, many.slice(0, many.lastIndexOf('||', 4090)));
    expect(
      db
        .prepare(`SELECT count(*) FROM k WHERE ${c2.where}`)
        .pluck()
        .get(...c2.params),
    ).toBe(2);
  });
});
