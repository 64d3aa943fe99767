/**
 * The log built for size: the counts kept by triggers stay exact through every kind of write
 * and purge, the totals of GET /v1/log equal count(*) of a reference query (also when derived
 * page by page, or served from the cache), key-paged walks return the same records as a
 * reference query, and the page queries use the intended indexes in every partition; a
 * date-range purge that leaves little of a partition (the rest copied to a new one) deletes exactly the
 * range, keeps the survivors' ids and the id sequence, and is seen by another connection all
 * at once. The log here spans several partitions (writes on several UTC days); the
 * partitions themselves and the full-text index are tested in log-partitions.test.ts.
 * Correctness only: speed is measured in bench/ (npm run bench).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { migrate, type Db } from '../../src/server/db.js';
import { startService } from '../../src/server/index.js';
import { writeLog } from '../../src/server/log-writer.js';
import { MIGRATIONS } from '../../src/server/migrations.js';
import { PURGE_BATCH, TRUNCATE_KEEP_MAX } from '../../src/server/log/purge.js';
import { tempDir } from '../helpers/cli.js';
import { http, startTestService, type TestService } from '../helpers/service.js';
import { useService } from '../helpers/fixtures.js';

const H = 3_600_000;
const DAY = 24 * H;
const END = Date.parse('2025-01-31T00:00:00.000Z');
const START = END - 30 * DAY;
const N = 20_000;
const LEVELS: [string, number][] = [
  ['Information', 0.8],
  ['Warning', 0.08],
  ['Debug', 0.06],
  ['Error', 0.03],
  ['Verbose', 0.028],
  ['Fatal', 0.002],
];

/** Deterministic pseudo-random numbers in [0, 1). */
function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
}

/** Inserts `n` entries straight into the table (as another writer would): time-ordered over [from, to), or shuffled times. */
function insertEntries(db: Db, n: number, from: number, to: number, o: { shuffled?: boolean; seed?: number } = {}): void {
  const rnd = rng(o.seed ?? 7);
  const ins = db.prepare('INSERT INTO log (time_stamp, level, message, message_template, exception, properties) VALUES (?, ?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const t = o.shuffled ? from + Math.floor(rnd() * (to - from)) : from + Math.floor((i / n) * (to - from));
      let r = rnd();
      let level = 'Information';
      for (const [l, p] of LEVELS) {
        if (r < p) {
          level = l;
          break;
        }
        r -= p;
      }
      const host = Math.floor(rnd() * 500);
      ins.run(
        t,
        level,
        `License checked by host-${host} for product P${host % 7}`,
        'License checked by {Machine} for product {Product}',
        '',
        JSON.stringify({ Machine: `host-${host}` }),
      );
    }
  })();
}

/** The partitions of the log, oldest first. */
const partsOf = (db: Db) => db.prepare('SELECT part FROM log_parts ORDER BY part').pluck().all() as number[];

/** The trigger-kept counts against the truth: log_stats.entries = count(*), log_counts = GROUP BY partition, hour, level. */
function expectCountsExact(db: Db): void {
  expect(db.prepare('SELECT entries FROM log_stats').pluck().get()).toBe(db.prepare('SELECT count(*) FROM log').pluck().get());
  const kept = db.prepare('SELECT part, hour, level, entries FROM log_counts WHERE entries <> 0 ORDER BY part, hour, level').all();
  const truth = partsOf(db).flatMap((k) =>
    db
      .prepare(
        `SELECT ${k} AS part, CAST(floor(time_stamp / 3600000.0) AS INTEGER) AS hour, level, count(*) AS entries
         FROM log_p${k} GROUP BY 2, 3 ORDER BY 2, 3`,
      )
      .all(),
  );
  expect(kept).toEqual(truth);
  expect(db.prepare('SELECT count(*) FROM log_counts WHERE entries < 0').pluck().get()).toBe(0);
}

/** count(*) of a reference query written by hand. */
const refCount = (db: Db, where: string, ...params: unknown[]) =>
  db
    .prepare(`SELECT count(*) FROM log WHERE ${where}`)
    .pluck()
    .get(...params) as number;
const iso = (ms: number) => new Date(ms).toISOString();
const q = (o: Record<string, string | number>) =>
  '?' +
  Object.entries(o)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');

const get = (query: string) => http(svc, 'GET', `/v1/log${query}`, { key: svc.adminKey });
const del = (query: string) => http(svc, 'DELETE', `/v1/log${query}`, { key: svc.adminKey });

/** Every SQL text the service prepares (a spy: it calls through to better-sqlite3). */
const prepared: string[] = [];

const { svc } = useService();
beforeAll(async () => {
  const db = svc.db;
  const real = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    prepared.push(sql);
    return real(sql);
  }) as typeof db.prepare;
  insertEntries(db, N, START, END);
  // entries before 1970 and on hour edges: the hour of a negative time is floored, not truncated
  for (const t of [-1, -H, -H - 1, 0, H, H - 1, START, START + H, END - 1]) writeLog(db, new Date(t), 'Warning', 'edge {T}', { T: t });
});

describe('migration 3', () => {
  it('fills log_stats and log_counts from a log that was already there', () => {
    const db = new Database(':memory:');
    for (let v = 0; v < 2; v++) db.exec(MIGRATIONS[v]!);
    db.pragma('user_version = 2');
    insertEntries(db, 3000, START, END, { shuffled: true, seed: 3 });
    db.prepare("INSERT INTO log (time_stamp, level) VALUES (?, 'Fatal'), (?, 'Fatal')").run(-H - 1, -1);
    expect(migrate(db)).toBe(MIGRATIONS.length - 2);
    expectCountsExact(db);
    expect(db.prepare('SELECT version FROM log_stats').pluck().get()).toBe(0);
    db.close();
  });
});

describe('totals of GET /v1/log equal count(*) of a reference query', () => {
  const cases: [string, Record<string, string | number>, string, unknown[]][] = [
    ['no filter', {}, '1', []],
    ['level', { filter: 'Level = "Warning"' }, "level = 'Warning'", []],
    ['level, other spelling', { filter: '"Error" == level' }, "level = 'Error'", []],
    ['a level nobody wrote', { filter: 'Level = "Nope"' }, "level = 'Nope'", []],
    ['start only, mid-hour', { startDate: iso(START + 10 * DAY + 1234567) }, 'time_stamp >= ?', [START + 10 * DAY + 1234567]],
    ['end only, on an hour', { endDate: iso(START + 5 * DAY) }, 'time_stamp < ?', [START + 5 * DAY]],
    [
      'range with ragged ends',
      { startDate: iso(START + 3 * DAY + 17), endDate: iso(END - 2 * DAY - 4_000_001) },
      'time_stamp >= ? AND time_stamp < ?',
      [START + 3 * DAY + 17, END - 2 * DAY - 4_000_001],
    ],
    [
      'range inside one hour',
      { startDate: iso(START + 7 * H + 60_000), endDate: iso(START + 7 * H + 2_000_000) },
      'time_stamp >= ? AND time_stamp < ?',
      [START + 7 * H + 60_000, START + 7 * H + 2_000_000],
    ],
    [
      'range across one hour edge',
      { startDate: iso(START + 7 * H + 60_000), endDate: iso(START + 8 * H + 2_000_000) },
      'time_stamp >= ? AND time_stamp < ?',
      [START + 7 * H + 60_000, START + 8 * H + 2_000_000],
    ],
    ['range over 1970', { startDate: iso(-2 * H), endDate: iso(H) }, 'time_stamp >= ? AND time_stamp < ?', [-2 * H, H]],
    ['empty range (end before start)', { startDate: iso(END), endDate: iso(START) }, '0', []],
    [
      'level and start',
      { filter: 'Level = "Warning"', startDate: iso(END - 7 * DAY + 999) },
      "level = 'Warning' AND time_stamp >= ?",
      [END - 7 * DAY + 999],
    ],
    [
      'level and range',
      { filter: 'Level = "Debug"', startDate: iso(START + DAY + 5), endDate: iso(START + 9 * DAY - 5) },
      "level = 'Debug' AND time_stamp >= ? AND time_stamp < ?",
      [START + DAY + 5, START + 9 * DAY - 5],
    ],
    ['Message.Contains', { filter: 'Message.Contains("host-42 ")' }, "instr(message, 'host-42 ') > 0", []],
    [
      'a filter the counts do not cover',
      { filter: 'Level != "Information" and TimeStamp >= "2025-01-20"', startDate: iso(START + 2 * DAY) },
      "level <> 'Information' AND time_stamp >= ? AND time_stamp >= ?",
      [Date.parse('2025-01-20'), START + 2 * DAY],
    ],
    [
      'sorted by id, with a range (bounded by its ids)',
      { sort: 'Id desc', startDate: iso(START + 12 * DAY + 3), endDate: iso(START + 14 * DAY) },
      'time_stamp >= ? AND time_stamp < ?',
      [START + 12 * DAY + 3, START + 14 * DAY],
    ],
  ];
  it.each(cases)('%s', async (_name, query, where, params) => {
    const want = refCount(svc.db, where, ...params);
    const first = await get(q({ ...query, take: 5 }));
    expect(first.status).toBe(200);
    expect(first.body.totalLogEntriesCount).toBe(want);
    // a second time: served from the cache, still the same
    expect((await get(q({ ...query, take: 5 }))).body.totalLogEntriesCount).toBe(want);
  });

  it('a cached total follows writes by the service and by another writer', async () => {
    const query = q({ filter: 'Message.Contains("cache-probe")' });
    expect((await get(query)).body.totalLogEntriesCount).toBe(0);
    writeLog(svc.db, new Date(END - H), 'Information', 'cache-probe {N}', { N: 1 });
    expect((await get(query)).body.totalLogEntriesCount).toBe(1);
    svc.db.prepare("INSERT INTO log (time_stamp, level, message) VALUES (?, 'Error', 'cache-probe 2')").run(END - 2 * H);
    expect((await get(query)).body.totalLogEntriesCount).toBe(2);
    svc.db.prepare("UPDATE log SET message = 'gone' WHERE message = 'cache-probe 2'").run();
    expect((await get(query)).body.totalLogEntriesCount).toBe(1);
    svc.db.prepare("DELETE FROM log WHERE message LIKE 'cache-probe%'").run();
    expect((await get(query)).body.totalLogEntriesCount).toBe(0);
    expectCountsExact(svc.db);
  });
});

describe('paging by key (lic log list --all): records and totals', () => {
  /** Walks `filter and Id < last` sorted by Id desc, as the CLI does; checks every page against the reference. */
  async function walk(query: Record<string, string>, where: string, params: unknown[], take = 700): Promise<number> {
    const pageRef = svc.db.prepare(`SELECT id FROM log WHERE (${where}) AND id < ? ORDER BY id DESC LIMIT ?`).pluck();
    let last = Number.MAX_SAFE_INTEGER;
    let seen = 0;
    for (let first = true; ; first = false) {
      const filter = first ? query.filter : query.filter ? `(${query.filter}) and Id < ${last}` : `Id < ${last}`;
      const r = await get(q({ ...query, ...(filter ? { filter } : {}), sort: 'Id desc', take }));
      expect(r.status).toBe(200);
      const got = r.body.logEntries.map((e: { id: number }) => e.id);
      expect(got).toEqual(pageRef.all(...params, last, take));
      expect(r.body.totalLogEntriesCount).toBe(refCount(svc.db, `(${where}) AND id < ?`, ...params, last));
      seen += got.length;
      if (got.length < take) return seen;
      last = got[got.length - 1];
    }
  }

  it('the whole log', async () => {
    expect(await walk({}, '1', [])).toBe(refCount(svc.db, '1'));
  });
  it('one level', async () => {
    expect(await walk({ filter: 'Level = "Information"' }, "level = 'Information'", [])).toBe(refCount(svc.db, "level = 'Information'"));
  });
  it('a date range, and a level in a date range', async () => {
    const [a, b] = [START + 11 * DAY + 77, START + 17 * DAY];
    expect(await walk({ startDate: iso(a), endDate: iso(b) }, 'time_stamp >= ? AND time_stamp < ?', [a, b], 997)).toBe(
      refCount(svc.db, 'time_stamp >= ? AND time_stamp < ?', a, b),
    );
    await walk({ filter: 'Level = "Warning"', startDate: iso(a) }, "level = 'Warning' AND time_stamp >= ?", [a], 300);
  });
  it('a filter only counted by count(*) (totals derived page by page)', async () => {
    await walk({ filter: 'Message.Contains("P3")' }, "instr(message, 'P3') > 0", [], 400);
  });

  it('bounds that move backwards, ascending keys, and a bound that equals another literal', async () => {
    const total = (filter: string, sort = 'Id asc') => get(q({ filter, sort, take: 1 })).then((r) => r.body.totalLogEntriesCount);
    for (const n of [5000, 9000, 7000, 7001, 7001, 2]) {
      expect(await total(`Level = "Warning" and Id > ${n}`)).toBe(refCount(svc.db, "level = 'Warning' AND id > ?", n));
      expect(await total(`Id >= ${n} and Message.Contains("host-1")`)).toBe(
        refCount(svc.db, "id >= ? AND instr(message, 'host-1') > 0", n),
      );
      expect(await total(`${n} >= Id`, 'Id desc')).toBe(refCount(svc.db, 'id <= ?', n));
    }
    // the same number twice: the bound can't be told apart, so it is counted outright (still exact)
    expect(await total('Id < 3000 and Id != 3000')).toBe(refCount(svc.db, 'id < 3000'));
  });

  it('shuffled times (ids not dense in a range) page and count the same as the reference', async () => {
    const other = await startTestService();
    try {
      insertEntries(other.db, 5000, START, END, { shuffled: true, seed: 11 });
      const [a, b] = [START + 3 * DAY, START + 6 * DAY];
      const r = await http(other, 'GET', `/v1/log${q({ sort: 'Id desc', startDate: iso(a), endDate: iso(b), take: 50 })}`, {
        key: other.adminKey,
      });
      expect(r.body.logEntries.map((e: { id: number }) => e.id)).toEqual(
        other.db.prepare('SELECT id FROM log WHERE time_stamp >= ? AND time_stamp < ? ORDER BY id DESC LIMIT 50').pluck().all(a, b),
      );
      expect(r.body.totalLogEntriesCount).toBe(refCount(other.db, 'time_stamp >= ? AND time_stamp < ?', a, b));
    } finally {
      await other.close();
    }
  });
});

describe('the page queries use the intended indexes in every partition (EXPLAIN QUERY PLAN)', () => {
  // a service of its own: a statement is prepared on its first use only, when the spy sees it
  const { svc } = useService();
  const prepared: string[] = [];
  const get = (query: string) => http(svc, 'GET', `/v1/log${query}`, { key: svc.adminKey });
  beforeAll(() => {
    insertEntries(svc.db, N, START, END, { seed: 31 });
    for (const t of [START - DAY, START + 3 * DAY, END - 5 * DAY, END - 2 * DAY])
      writeLog(svc.db, new Date(t), 'Warning', 'edge {T}', { T: t });
    const real = svc.db.prepare.bind(svc.db);
    svc.db.prepare = ((sql: string) => (prepared.push(sql), real(sql))) as typeof svc.db.prepare;
  });

  /**
   * The plan of each partition's part of the page query the service ran for `query`
   * (placeholders bound to null), and the whole plan: one compound SELECT over the
   * partitions, or one SELECT per partition read one after another.
   */
  async function plansOf(query: Record<string, string | number>): Promise<{ arms: string[]; plan: string }> {
    prepared.length = 0;
    expect((await get(q(query))).status).toBe(200);
    const sqls = prepared.filter((s) => /^SELECT .* FROM log_p\d+ l .* ORDER BY .* LIMIT \?( OFFSET \?)?$/s.test(s));
    expect(sqls.length).toBeGreaterThan(0);
    const rows = sqls.flatMap((sql) => {
      const nulls = Array((sql.match(/\?/g) ?? []).length).fill(null);
      // a compound's filter is bound once by name (@b0, @b1, …: bindOnce)
      const named = Object.fromEntries([...new Set(sql.match(/@b\d+/g) ?? [])].map((n) => [n.slice(1), null]));
      return (svc.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(named, ...nulls) as { detail: string }[]).map((r) => r.detail);
    });
    return { arms: rows.filter((d) => /^(SCAN|SEARCH) l\b/.test(d)), plan: rows.join(' | ') };
  }
  /** Every partition read with `re`, none sorted: SQLite merges them in the page's order. */
  async function expectArms(query: Record<string, string | number>, re: RegExp, least = partsOf(svc.db).length): Promise<void> {
    const { arms, plan } = await plansOf(query);
    expect(arms.length, plan).toBeGreaterThanOrEqual(least);
    for (const a of arms) expect(a, plan).toMatch(re);
    expect(plan).not.toMatch(/TEMP B-TREE/);
  }

  it('the log spans several partitions here', () => {
    expect(partsOf(svc.db).length).toBeGreaterThan(2);
  });
  it('default sort (TimeStamp desc, Id desc): the time index', async () => {
    await expectArms({}, /^SCAN l USING INDEX log_(p\d+_)?time$/);
  });
  it('Level and a date range, default sort: the level-time index (level=? AND time_stamp>?…)', async () => {
    await expectArms(
      { filter: 'Level = "Warning"', startDate: iso(END - 7 * DAY), endDate: iso(END - DAY) },
      /^SEARCH l USING INDEX log_(p\d+_)?level_time \(level=\? AND time_stamp>\? AND time_stamp<\?\)$/,
      1,
    );
  });
  it('a date range, default sort: the time index, a range', async () => {
    await expectArms({ startDate: iso(END - 7 * DAY) }, /^SEARCH l USING INDEX log_(p\d+_)?time \(time_stamp>\?\)$/, 1);
  });
  // sorted by Id, the partitions (their ids apart) are read one after another until the page is full
  it('Id > N sorted by Id asc, and Id < N by Id desc: the primary key', async () => {
    await expectArms({ filter: 'Id > 100', sort: 'Id' }, /^SEARCH l USING INTEGER PRIMARY KEY \(rowid>\?\)$/, 1);
    await expectArms({ filter: 'Id < 100', sort: 'Id desc' }, /^SEARCH l USING INTEGER PRIMARY KEY \(rowid<\?\)$/, 1);
  });
  it('Level and Id < N by Id desc: the level index (level, rowid)', async () => {
    await expectArms(
      { filter: '(Level = "Warning") and (Id < 100)', sort: 'Id desc' },
      /^SEARCH l USING INDEX log_(p\d+_)?level \(level=\? AND rowid<\?\)$/,
    );
  });
  it("a date range and Id < N by Id desc: the primary key within the range's ids", async () => {
    await expectArms(
      { startDate: iso(END - 7 * DAY), filter: 'Id < 19000', sort: 'Id desc' },
      /^SEARCH l USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)$/,
      1,
    );
  });
  it('only the partitions a date range touches are read', async () => {
    const { arms } = await plansOf({ startDate: iso(END - 7 * DAY), endDate: iso(END - DAY) });
    const touching = partsOf(svc.db).filter((k) => {
      const [lo, hi] = svc.db.prepare(`SELECT min(time_stamp), max(time_stamp) FROM log_p${k}`).raw().get() as number[];
      return lo! < END - DAY && hi! >= END - 7 * DAY;
    });
    expect(arms.length).toBe(touching.length);
    expect(touching.length).toBeLessThan(partsOf(svc.db).length);
  });
});

describe('DELETE /v1/log keeps the counts exact', () => {
  it('by id', async () => {
    const id = svc.db.prepare("SELECT max(id) FROM log WHERE level = 'Warning'").pluck().get() as number;
    expect((await del(q({ id }))).body.deletedLogCount).toBe(1);
    expectCountsExact(svc.db);
  });

  it('by a sparse filter over many windows: exactly the matching entries go', async () => {
    const where = "instr(message, 'host-7 ') > 0";
    const before = svc.db.prepare(`SELECT id FROM log WHERE NOT (${where}) ORDER BY id`).pluck().all();
    const want = refCount(svc.db, where);
    expect(refCount(svc.db, '1')).toBeGreaterThan(5 * PURGE_BATCH);
    const r = await del(q({ filter: 'Message.Contains("host-7 ")' }));
    expect(r.body.deletedLogCount).toBe(want);
    expect(refCount(svc.db, where)).toBe(0);
    // what is left is what did not match, plus the purge's own audit entry
    expect(svc.db.prepare(`SELECT id FROM log WHERE NOT (${where}) ORDER BY id`).pluck().all().slice(0, before.length)).toEqual(before);
    expectCountsExact(svc.db);
  });

  it('windows split entries that share one time stamp: none skipped, none twice', async () => {
    const t = START + 15 * DAY + 1;
    const ins = svc.db.prepare('INSERT INTO log (time_stamp, level, message) VALUES (?, ?, ?)');
    svc.db.transaction(() => {
      for (let i = 0; i < 3 * PURGE_BATCH + 7; i++) ins.run(t, i % 3 === 0 ? 'Error' : 'Information', `same-ms ${i}`);
    })();
    const where = "time_stamp = ? AND level = 'Error'";
    const want = refCount(svc.db, where, t);
    const r = await del(q({ filter: 'Level = "Error"', startDate: iso(t), endDate: iso(t + 1) }));
    expect(r.body.deletedLogCount).toBe(want);
    expect(refCount(svc.db, where, t)).toBe(0);
    expect(refCount(svc.db, "time_stamp = ? AND level = 'Information'", t)).toBe(3 * PURGE_BATCH + 7 - want);
    expectCountsExact(svc.db);
  });

  it('by a date range with ragged ends, and a level in a range', async () => {
    const [a, b] = [START + 2 * DAY + 123, START + 9 * DAY + 4567];
    const want = refCount(svc.db, 'time_stamp >= ? AND time_stamp < ?', a, b);
    expect((await del(q({ startDate: iso(a), endDate: iso(b) }))).body.deletedLogCount).toBe(want);
    expect(refCount(svc.db, 'time_stamp >= ? AND time_stamp < ?', a, b)).toBe(0);
    expectCountsExact(svc.db);
    const wantDebug = refCount(svc.db, "level = 'Debug' AND time_stamp >= ?", START + 20 * DAY);
    expect((await del(q({ filter: 'Level = "Debug"', startDate: iso(START + 20 * DAY) }))).body.deletedLogCount).toBe(wantDebug);
    expect(refCount(svc.db, "level = 'Debug' AND time_stamp >= ?", START + 20 * DAY)).toBe(0);
    expectCountsExact(svc.db);
    // and the totals of GET agree
    expect((await get(q({ filter: 'Level = "Debug"', take: 1 }))).body.totalLogEntriesCount).toBe(refCount(svc.db, "level = 'Debug'"));
  });

  it('a date range holding every entry: all go (as by deleteAll), counts exact, triggers back', async () => {
    const n = refCount(svc.db, '1');
    const r = await del(q({ startDate: iso(-10 * DAY), endDate: iso(Date.now() + DAY) }));
    expect(r.body.deletedLogCount).toBe(n);
    expect(refCount(svc.db, '1')).toBe(1); // the purge's own audit entry
    expectCountsExact(svc.db);
    insertEntries(svc.db, 4000, START, END, { seed: 9 });
    expectCountsExact(svc.db);
    // the first purge's audit entry (dated now) lies outside this range: only the range goes
    const m = refCount(svc.db, 'time_stamp < ?', END);
    expect(m).toBe(4000);
    expect((await del(q({ endDate: iso(END) }))).body.deletedLogCount).toBe(m);
    expect(refCount(svc.db, '1')).toBe(2); // both purges' audit entries
    expectCountsExact(svc.db);
  });

  it('deleteAll: everything goes, the triggers are back, and later writes are counted', async () => {
    const n = refCount(svc.db, '1');
    const version = svc.db.prepare('SELECT version FROM log_stats').pluck().get() as number;
    expect((await del('?deleteAll=true')).body.deletedLogCount).toBe(n);
    // the purge's own audit entry, counted by the remade insert trigger
    expect(refCount(svc.db, '1')).toBe(1);
    expectCountsExact(svc.db);
    expect(svc.db.prepare('SELECT version FROM log_stats').pluck().get()).toBeGreaterThan(version);
    // the partitions went with their tables; the head that replaced them has its triggers
    const [head] = partsOf(svc.db);
    const triggers = svc.db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? ORDER BY name")
      .pluck()
      .all(`log_p${head}`);
    expect(triggers).toEqual([`log_p${head}_delete`, `log_p${head}_insert`, `log_p${head}_update`]);
    expect(
      svc.db
        .prepare("SELECT count(*) FROM sqlite_master WHERE name GLOB 'log_p[0-9]*' AND type = 'table' AND name NOT GLOB '*_fts*'")
        .pluck()
        .get(),
    ).toBe(1);
    insertEntries(svc.db, 500, START, END, { seed: 5 });
    expectCountsExact(svc.db);
    expect((await get('?take=1')).body.totalLogEntriesCount).toBe(501);
  });
});

// ---------------------------------------------------------------------------------------
// a date-range purge that leaves little of a partition: the survivors copied to a new partition, the old one dropped

/** Records every SQL text `db` prepares (calls through); tells whether a purge took the path that copies the rest of a partition to a new one. */
function spyPrepare(db: Db): { truncated: () => boolean; reset: () => void } {
  const seen: string[] = [];
  const real = db.prepare.bind(db);
  db.prepare = ((sql: string) => (seen.push(sql), real(sql))) as typeof db.prepare;
  return {
    truncated: () => seen.some((s) => /^INSERT INTO log_p\d+ \(id, .*\) SELECT .* FROM log_p\d+ WHERE/.test(s)),
    reset: () => void (seen.length = 0),
  };
}
/** The schema objects of partition k: table, indexes, triggers, with their SQL. */
const partSchema = (db: Db, k: number) =>
  db.prepare('SELECT type, name, sql FROM sqlite_master WHERE tbl_name = ? ORDER BY type, name').all(`log_p${k}`);
/** The highest id ever issued (the next entry gets the one after). */
const seq = (db: Db) => db.prepare('SELECT last_id FROM log_stats').pluck().get() as number;
const rows = (db: Db, where: string, ...params: unknown[]) => db.prepare(`SELECT * FROM log WHERE ${where} ORDER BY id`).all(...params);

/** A service of its own over a fresh log (in memory, or in `file`), with a prepare spy; closed by the caller. */
async function freshService(file?: string): Promise<TestService & { spy: ReturnType<typeof spyPrepare> }> {
  let svc: TestService;
  if (file) {
    const started = await startService({ dbPath: file, port: 0 });
    svc = Object.assign(started, { adminKey: started.issuedKeys.find((k) => k.role === 'Administrator')!.key });
  } else {
    svc = await startTestService();
  }
  return Object.assign(svc, { spy: spyPrepare(svc.db) });
}
const sdel = (svc: TestService, query: string) => http(svc, 'DELETE', `/v1/log${query}`, { key: svc.adminKey });
const sget = (svc: TestService, query: string) => http(svc, 'GET', `/v1/log${query}`, { key: svc.adminKey });

describe('DELETE /v1/log by a date range that leaves little of a partition: the rest copied to a new one', () => {
  it('deletes exactly the range; survivors unchanged (ids too); counts, totals and the schema exact; the audit entry lands', async () => {
    const s = await freshService();
    try {
      const db = s.db;
      insertEntries(db, N, START, END, { seed: 21 });
      const [a, b] = [START - DAY + 17, END - DAY + 1_234_567]; // ragged ends: partial hours on both sides
      // on both sides of the range and on its bounds, before 1970, on hour edges
      for (const t of [-H - 1, -1, 0, START - 2 * DAY, a - 1, a, b - 1, b, END - H, END, END + 1])
        writeLog(db, new Date(t), 'Warning', 'edge {T}', { T: t });
      const inRange = 'time_stamp >= ? AND time_stamp < ?';
      const want = refCount(db, inRange, a, b);
      const survivors = rows(db, `NOT (${inRange})`, a, b);
      expect(survivors.length).toBeGreaterThan(0);
      expect(survivors.length * 4).toBeLessThanOrEqual(want); // so the copying path applies
      const parts = partsOf(db);
      expect(parts.length).toBeGreaterThan(2); // the edges were written on several days
      const schema = parts.map((k) => partSchema(db, k));
      const maxId = seq(db);
      const version = db.prepare('SELECT version FROM log_stats').pluck().get() as number;
      // totals cached before the purge (a filter the hour counts don't cover, and a level)
      const contains = q({ filter: 'Message.Contains("host-1")', take: 1 });
      const warning = q({ filter: 'Level = "Warning"', take: 1 });
      for (let i = 0; i < 2; i++) await Promise.all([sget(s, contains), sget(s, warning)]);

      s.spy.reset();
      const r = await sdel(s, q({ startDate: iso(a), endDate: iso(b) }));
      expect(r.status).toBe(200);
      expect(s.spy.truncated()).toBe(true);
      expect(r.body.deletedLogCount).toBe(want);
      expect(refCount(db, inRange, a, b)).toBe(0);
      expect(rows(db, 'id <= ?', maxId)).toEqual(survivors);
      // plus the purge's own audit entry, with a new id
      const audit = rows(db, 'id > ?', maxId) as { message: string }[];
      expect(audit).toHaveLength(1);
      expect(audit[0]!.message).toContain(`purged ${want} log entries`);
      expectCountsExact(db);
      expect(db.prepare('SELECT version FROM log_stats').pluck().get()).toBeGreaterThan(version);
      // partition 1 (most of the range) was replaced by a new one holding its survivors; the
      // others, cut through by a few entries, are there with their indexes and triggers
      expect(partsOf(db)).not.toContain(1);
      expect(partsOf(db)).toEqual(expect.arrayContaining(parts.slice(1)));
      for (const [i, k] of parts.entries()) if (k !== 1) expect(partSchema(db, k)).toEqual(schema[i]);
      expect(db.prepare('SELECT count(*) FROM log_drops').pluck().get()).toBe(0); // dropped before the reply (in memory)
      expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name GLOB 'log_p1_*' OR name = 'log_p1'").pluck().get()).toBe(0);
      expect(db.prepare("SELECT count(*) FROM sqlite_temp_master WHERE type = 'table'").pluck().get()).toBe(0);
      // totals through the API: the cached ones are stale and not used
      expect((await sget(s, contains)).body.totalLogEntriesCount).toBe(refCount(db, "instr(message, 'host-1') > 0"));
      expect((await sget(s, warning)).body.totalLogEntriesCount).toBe(refCount(db, "level = 'Warning'"));
      expect((await sget(s, q({ take: 1 }))).body.totalLogEntriesCount).toBe(survivors.length + 1);
      const p = await sget(s, q({ sort: 'Id desc', startDate: iso(END - 2 * DAY), take: 50 }));
      expect(p.body.logEntries.map((e: { id: number }) => e.id)).toEqual(
        db
          .prepare('SELECT id FROM log WHERE time_stamp >= ? ORDER BY id DESC LIMIT 50')
          .pluck()
          .all(END - 2 * DAY),
      );
      expect(p.body.totalLogEntriesCount).toBe(refCount(db, 'time_stamp >= ?', END - 2 * DAY));
      // the log works on: new writes counted
      insertEntries(db, 300, START, END, { seed: 22 });
      expectCountsExact(db);
    } finally {
      await s.close();
    }
  });

  it('the newest ids deleted: later entries still get ids above every id ever issued (AUTOINCREMENT)', async () => {
    const s = await freshService();
    try {
      const db = s.db;
      insertEntries(db, N, START, END, { seed: 23 });
      const everIssued = seq(db);
      expect(db.prepare('SELECT max(id) FROM log').pluck().get()).toBe(everIssued);
      // keeps the oldest day only: the newest entries, with the highest ids, go
      const from = START + DAY;
      const want = refCount(db, 'time_stamp >= ?', from);
      s.spy.reset();
      const r = await sdel(s, q({ startDate: iso(from) }));
      expect(s.spy.truncated()).toBe(true);
      expect(r.body.deletedLogCount).toBe(want);
      const left = db.prepare('SELECT max(id) FROM log WHERE id <= ?').pluck().get(everIssued) as number;
      expect(left).toBeLessThan(everIssued - N / 2);
      // the purge's audit entry, then one more: above every id ever issued, not above what is left
      const after = db.prepare('SELECT id FROM log WHERE id > ?').pluck().all(left) as number[];
      expect(after).toHaveLength(1);
      expect(after[0]).toBeGreaterThan(everIssued);
      expect(writeLog(db, new Date(END), 'Information', 'after the purge', {})).toBe(after[0]! + 1);
      expectCountsExact(db);
      // deleteAll (no survivors) keeps the sequence as well
      const before = seq(db);
      expect((await sdel(s, '?deleteAll=true')).status).toBe(200);
      expect(db.prepare('SELECT id FROM log').pluck().all()).toEqual([before + 1]);
      expectCountsExact(db);
    } finally {
      await s.close();
    }
  });

  it('another connection (WAL, its own thread) reading meanwhile sees the log before or after, never between', async () => {
    const file = join(tempDir('lic-purge-'), 'log.db');
    const s = await freshService(file);
    insertEntries(s.db, 30_000, START, END, { seed: 24 });
    const flags = new Int32Array(new SharedArrayBuffer(8)); // [0]: stop; [1]: reads so far
    // reads, in one transaction each: count(*), least and greatest id, log_stats.entries, sum of log_counts
    const reader = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
      const Database = require(workerData.driver);
      const db = new Database(workerData.file);
      db.pragma('busy_timeout = 5000');
      const read = db.transaction(() => [
        db.prepare('SELECT count(*) FROM log').pluck().get(),
        db.prepare('SELECT min(id) FROM log').pluck().get(),
        db.prepare('SELECT max(id) FROM log').pluck().get(),
        db.prepare('SELECT entries FROM log_stats').pluck().get(),
        db.prepare('SELECT total(entries) FROM log_counts').pluck().get(),
      ].join('/'));
      const seen = new Map();
      while (Atomics.load(workerData.flags, 0) === 0) {
        const state = read();
        seen.set(state, (seen.get(state) ?? 0) + 1);
        Atomics.add(workerData.flags, 1, 1);
      }
      db.close();
      parentPort.postMessage([...seen]);`,
      { eval: true, workerData: { file, flags, driver: createRequire(import.meta.url).resolve('better-sqlite3') } },
    );
    const result = new Promise<[string, number][]>((resolve, reject) => (reader.once('message', resolve), reader.once('error', reject)));
    const readsAtLeast = async (n: number) => {
      for (let i = 0; Atomics.load(flags, 1) < n; i++) {
        if (i > 2000) throw new Error('the reader does not read');
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    try {
      const db = s.db;
      const state = (where: string, ...params: unknown[]) => {
        const [n, lo, hi] = db
          .prepare(`SELECT count(*), min(id), max(id) FROM log WHERE ${where}`)
          .raw()
          .get(...params) as number[];
        return `${n}/${lo}/${hi}/${n}/${n}`;
      };
      const from = END - 5 * DAY; // a sixth of the log stays: the copy back takes a while
      const want = refCount(db, 'time_stamp < ?', from);
      const old = state('1');
      const purged = state('time_stamp >= ?', from);
      await readsAtLeast(3);
      s.spy.reset();
      const r = await sdel(s, q({ endDate: iso(from) }));
      expect(s.spy.truncated()).toBe(true);
      const audited = state('1');
      const n = Atomics.load(flags, 1);
      await readsAtLeast(n + 3);
      Atomics.store(flags, 0, 1);
      const seen = new Map(await result);
      expect(r.body.deletedLogCount).toBe(want);
      expect(seen.get(old)).toBeGreaterThan(0);
      expect(seen.get(audited)).toBeGreaterThan(0);
      expect([...seen.keys()].filter((k) => k !== old && k !== purged && k !== audited)).toEqual([]);
    } finally {
      Atomics.store(flags, 0, 1);
      await reader.terminate();
      await s.close();
    }
  });

  it('the other purges are unaffected: a range that keeps more than a fifth, a filter, an id go in windows; exact', async () => {
    expect(TRUNCATE_KEEP_MAX).toBeGreaterThanOrEqual(N); // so below, only the fifth decides
    const s = await freshService();
    try {
      const db = s.db;
      insertEntries(db, N, START, END, { seed: 25 });
      const check = async (query: Record<string, string | number>, where: string, ...params: unknown[]) => {
        const survivors = rows(db, `NOT (${where})`, ...params);
        const want = refCount(db, where, ...params);
        const maxId = seq(db);
        s.spy.reset();
        const r = await sdel(s, q(query));
        expect(r.body.deletedLogCount).toBe(want);
        expect(s.spy.truncated()).toBe(false);
        expect(rows(db, 'id <= ?', maxId)).toEqual(survivors);
        expectCountsExact(db);
      };
      // keeps a quarter of the log, more than a fifth
      await check({ endDate: iso(START + 22.5 * DAY) }, 'time_stamp < ?', START + 22.5 * DAY);
      insertEntries(db, N, START, END, { seed: 26 });
      const id = db.prepare('SELECT max(id) FROM log WHERE level = ?').pluck().get('Warning') as number;
      await check({ id }, 'id = ?', id);
      // filters that delete nearly everything
      await check({ filter: 'Level != "Fatal"' }, "level <> 'Fatal'");
      insertEntries(db, N, START, END, { seed: 27 });
      await check({ filter: 'Level != "Warning"', startDate: iso(START) }, "level <> 'Warning' AND time_stamp >= ?", START);
      // an empty range deletes nothing
      await check({ startDate: iso(END), endDate: iso(START) }, '0');
    } finally {
      await s.close();
    }
  });

  it('a trigger of your own on the view log: purged row by row through the view, so it fires for each entry, and stays', async () => {
    const s = await freshService();
    try {
      const db = s.db;
      insertEntries(db, N, START, END, { seed: 27 });
      // the log is a view over its partitions: a trigger on it is INSTEAD OF (ours does the delete)
      db.exec(`CREATE TABLE deleted_ids (id INTEGER NOT NULL);
        CREATE TRIGGER log_keep_deleted INSTEAD OF DELETE ON log BEGIN INSERT INTO deleted_ids VALUES (OLD.id); END;`);
      const from = END - DAY;
      const gone = db.prepare('SELECT id FROM log WHERE time_stamp < ? ORDER BY id').pluck().all(from);
      s.spy.reset();
      const r = await sdel(s, q({ endDate: iso(from) }));
      expect(r.body.deletedLogCount).toBe(gone.length);
      expect(s.spy.truncated()).toBe(false);
      expect(db.prepare('SELECT id FROM deleted_ids ORDER BY id').pluck().all()).toEqual(gone);
      expectCountsExact(db);
      const n = refCount(db, '1');
      expect((await sdel(s, '?deleteAll=true')).body.deletedLogCount).toBe(n);
      expect(db.prepare('SELECT count(*) FROM deleted_ids').pluck().get()).toBe(gone.length + n);
      expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'log' ORDER BY name").pluck().all()).toEqual([
        'log_keep_deleted',
        'log_view_delete',
        'log_view_insert',
        'log_view_update',
      ]);
      // a new partition (a write on a later day) makes the view again: the trigger is kept
      writeLog(db, new Date(Date.now() + 3 * DAY), 'Information', 'later', {});
      expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'log_keep_deleted'").pluck().get()).toBe(1);
      expectCountsExact(db);
    } finally {
      await s.close();
    }
  });
});
