/**
 * The log in time partitions and its full-text index: a database of before (schema 4) opens
 * as partition 1 with its entries, ids and counts (migration 5), its index filled in the
 * background; a write on a later UTC day starts a partition; pages and totals read across
 * partitions equal a reference query on the view; Message.Contains answered from the
 * trigram index equals the byte-exact substring test (instr) for any needle, indexed or not,
 * after deletes and updates, by either plan; a purge by date takes whole partitions out and
 * drops their tables, and what a stop left undropped is dropped at the next start.
 * Correctness only: speed is measured in bench/ (npm run bench).
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type Db } from '../../src/server/db.js';
import { startService } from '../../src/server/index.js';
import { indexLog, indexLogBatch } from '../../src/server/log/fts.js';
import { ftsDdl, partitionTriggers, viewDdl } from '../../src/server/log/parts.js';
import { detachParts } from '../../src/server/log/purge.js';
import { writeLog, writeLogEntries, type LogRow } from '../../src/server/log-writer.js';
import { MIGRATIONS } from '../../src/server/migrations.js';
import { listResponse, selectable } from '../../src/server/openapi.js';
import { LogEntrySchema } from '../../src/schema/log-entry.js';
import { tempDir } from '../helpers/cli.js';
import { http, startTestService, type TestService } from '../helpers/service.js';

const H = 3_600_000;
const DAY = 24 * H;
const T0 = Date.parse('2025-03-10T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const q = (o: Record<string, string | number>) => `?${new URLSearchParams(Object.entries(o).map(([k, v]) => [k, String(v)]))}`;
const partsOf = (db: Db) => db.prepare('SELECT part FROM log_parts ORDER BY part').pluck().all() as number[];
const tables = (db: Db) =>
  db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'log_p[0-9]*' AND name NOT GLOB '*_fts*' ORDER BY name")
    .pluck()
    .all();
const count = (db: Db, where = '1', ...params: unknown[]) =>
  db
    .prepare(`SELECT count(*) FROM log WHERE ${where}`)
    .pluck()
    .get(...params) as number;

/** Deterministic pseudo-random numbers in [0, 1). */
function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
}

/** `n` entries in time order over [from, to), levels and messages from `message(i, rnd)`. */
function entries(n: number, from: number, to: number, message: (i: number, rnd: () => number) => string, seed = 1): LogRow[] {
  const rnd = rng(seed);
  const levels = ['Information', 'Information', 'Information', 'Warning', 'Error', 'Debug'];
  return Array.from({ length: n }, (_, i) => {
    const m = message(i, rnd);
    return [from + Math.floor((i / n) * (to - from)), levels[i % levels.length]!, m, m, '', '{}'] as LogRow;
  });
}

/** The trigger-kept counts against the truth, per partition. */
function expectCountsExact(db: Db): void {
  expect(db.prepare('SELECT entries FROM log_stats').pluck().get()).toBe(count(db));
  const kept = db.prepare('SELECT part, hour, level, entries FROM log_counts WHERE entries <> 0 ORDER BY part, hour, level').all();
  const truth = partsOf(db).flatMap((k) =>
    db
      .prepare(
        `SELECT ${k} AS part, CAST(floor(time_stamp / 3600000.0) AS INTEGER) AS hour, level, count(*) AS entries FROM log_p${k} GROUP BY 2, 3 ORDER BY 2, 3`,
      )
      .all(),
  );
  expect(kept).toEqual(truth);
}

/** Every partition's index holds exactly its entries up to fts_upto, with their messages (checked through the index: each entry found by its own message). */
function expectIndexExact(db: Db): void {
  for (const k of partsOf(db)) {
    const upto = db.prepare('SELECT fts_upto FROM log_parts WHERE part = ?').pluck().get(k) as number;
    const indexed = db.prepare(`SELECT count(*) FROM log_p${k}_fts`).pluck().get() as number;
    const want = db.prepare(`SELECT count(*) FROM log_p${k} WHERE id <= ?`).pluck().get(upto) as number;
    expect(indexed, `partition ${k}`).toBe(want);
  }
}

describe('migration 5: a log of before becomes partition 1, as it is', () => {
  /** A database file at schema 4 with a log of `n` entries, some deleted so the id sequence is above the greatest id left. */
  function oldDatabase(n: number): { file: string; highMark: number } {
    const file = join(tempDir('lic-migrate-'), 'old.db');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    for (let v = 0; v < 4; v++) db.exec(MIGRATIONS[v]!);
    db.pragma('user_version = 4');
    const ins = db.prepare(
      'INSERT INTO log (time_stamp, level, message, message_template, exception, properties) VALUES (?, ?, ?, ?, ?, ?)',
    );
    db.transaction(() => {
      for (const row of entries(n, T0 - 20 * DAY, T0, (i) => `License ${100 + (i % 97)} checked on WS-${i % 13} (Mode ${i % 3})`))
        ins.run(row);
    })();
    db.exec(`DELETE FROM log WHERE id > ${n - 5}`);
    db.close();
    return { file, highMark: n };
  }

  it('opens with its entries, ids and counts; the next id is above every id issued; Contains is exact before and after indexing', async () => {
    const { file, highMark } = oldDatabase(3000);
    const before = new Database(file, { readonly: true });
    const rows = before.prepare('SELECT * FROM log ORDER BY id').all();
    before.close();
    const svc = await startService({
      dbPath: file,
      port: 0,
      authFailLimit: { limit: 0, windowMs: 60_000 },
      secretKey: Buffer.alloc(32, 7).toString('base64'),
    });
    try {
      const db = svc.db;
      const key = svc.issuedKeys[0]!.key;
      expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
      expect(db.prepare("SELECT type FROM sqlite_master WHERE name = 'log'").pluck().get()).toBe('view');
      expect(db.prepare('SELECT * FROM log_p1 ORDER BY id').all()).toEqual(rows);
      expect(db.prepare('SELECT last_id FROM log_stats').pluck().get()).toBe(highMark);
      // the bootstrap wrote nothing to the log; a write now gets the id after the high mark
      expect(writeLog(db, new Date(T0 + H), 'Information', 'after the upgrade', {})).toBe(highMark + 1);
      expectCountsExact(db);
      const contains = async (needle: string) =>
        (await http(svc, 'GET', `/v1/log${q({ filter: `Message.Contains("${needle}")`, sort: 'Id', take: 1000 })}`, { key })).body;
      const ref = (needle: string) => db.prepare('SELECT id FROM log WHERE instr(message, ?) > 0 ORDER BY id').pluck().all(needle);
      // not indexed yet (fts_upto 0): the entries are scanned
      expect(db.prepare('SELECT fts_upto FROM log_parts WHERE part = 1').pluck().get()).toBe(0);
      const r1 = await contains('WS-7 (Mode 1)');
      expect(r1.logEntries.map((e: { id: number }) => e.id)).toEqual(ref('WS-7 (Mode 1)'));
      // the start scheduled the indexer: it fills the index in the background (the write above went to a partition of its own, a later day)
      expect(partsOf(db)).toEqual([1, 2]);
      const maxOld = db.prepare('SELECT max(id) FROM log_p1').pluck().get();
      for (let i = 0; db.prepare('SELECT fts_upto FROM log_parts WHERE part = 1').pluck().get() !== maxOld; i++) {
        if (i > 400) throw new Error('the index was not filled');
        await new Promise((r) => setTimeout(r, 25));
      }
      expectIndexExact(db);
      const r2 = await contains('WS-7 (Mode 1)');
      expect(r2.logEntries.map((e: { id: number }) => e.id)).toEqual(ref('WS-7 (Mode 1)'));
      expect(r2.totalLogEntriesCount).toBe(ref('WS-7 (Mode 1)').length);
    } finally {
      await svc.close();
    }
  });

  it("partition 1's triggers, index and view as migration 5 wrote them are those the code makes for a partition", () => {
    const db = openDatabase(':memory:');
    const norm = (sql: string) => sql.replace(/\s+/g, ' ').trim();
    const made = new Database(':memory:');
    const sqlOf = (d: Database.Database, name: string) =>
      norm(d.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(name) as string);
    // the code's DDL, run on a scratch database with the tables it refers to
    made.exec(`CREATE TABLE log_p1 (id INTEGER PRIMARY KEY, time_stamp, level, message, message_template, exception, properties);
      CREATE TABLE log_stats (entries, version, last_id); CREATE TABLE log_counts (hour, level, part, entries, PRIMARY KEY (hour, level, part));
      CREATE TABLE log_parts (part INTEGER PRIMARY KEY, opened, fts_upto, lo, hi, version);
      ${ftsDdl(1)} ${partitionTriggers(1)} ${viewDdl([1])}`);
    for (const name of [
      'log_p1_insert',
      'log_p1_delete',
      'log_p1_update',
      'log_p1_fts',
      'log',
      'log_view_insert',
      'log_view_update',
      'log_view_delete',
    ]) {
      expect(sqlOf(db, name), name).toBe(sqlOf(made, name));
    }
    made.close();
    db.close();
  });

  it('a database of before with an empty log: partition 1 opens for the day of its first write', () => {
    const db = new Database(':memory:');
    for (let v = 0; v < 4; v++) db.exec(MIGRATIONS[v]!);
    db.pragma('user_version = 4');
    migrate(db);
    expect(db.prepare('SELECT opened, lo, hi, fts_upto FROM log_parts').raw().all()).toEqual([[null, null, null, 0]]);
    writeLog(db, new Date(T0 + 5 * H), 'Information', 'first', {});
    writeLog(db, new Date(T0 + 9 * H), 'Information', 'same day', {});
    expect(db.prepare('SELECT part, opened, lo, hi FROM log_parts').raw().all()).toEqual([[1, T0 / DAY, T0 + 5 * H, T0 + 9 * H]]);
    db.close();
  });
});

describe('partitions: one per UTC day of writing', () => {
  it('a write on a later day starts one; an earlier time goes to the head; an empty head takes the day; writeLogEntries does as writeLog', () => {
    const db = openDatabase(':memory:');
    const at = (t: number, m = 'x') => writeLog(db, new Date(t), 'Information', m, {});
    at(T0 + H);
    at(T0 + 23 * H);
    expect(partsOf(db)).toEqual([1]);
    at(T0 + DAY + 1); // the next day
    at(T0 - 30 * DAY); // late: into the head
    at(T0 + 3 * DAY);
    expect(partsOf(db)).toEqual([1, 2, 3]);
    expect(db.prepare('SELECT count(*) FROM log_p2').pluck().get()).toBe(2);
    expect(db.prepare('SELECT part, opened, lo, hi FROM log_parts').raw().all()).toEqual([
      [1, T0 / DAY, T0 + H, T0 + 23 * H],
      [2, T0 / DAY + 1, T0 - 30 * DAY, T0 + DAY + 1],
      [3, T0 / DAY + 3, T0 + 3 * DAY, T0 + 3 * DAY],
    ]);
    // ids go on across partitions
    expect(db.prepare('SELECT id FROM log ORDER BY id').pluck().all()).toEqual([1, 2, 3, 4, 5]);
    writeLogEntries(
      db,
      entries(500, T0 + 3 * DAY + H, T0 + 6 * DAY, (i) => `bulk ${i}`),
    );
    expect(partsOf(db)).toEqual([1, 2, 3, 4, 5]);
    expect(db.prepare('SELECT min(id), max(id) FROM log').raw().get()).toEqual([1, 505]);
    expectCountsExact(db);
    db.close();
  });

  it('the view takes writes, updates and deletes of other writers to the right partition, counted and indexed', () => {
    const db = openDatabase(':memory:');
    writeLogEntries(
      db,
      entries(300, T0, T0 + 3 * DAY, (i) => `entry ${i} of three days`),
    );
    indexLog(db);
    expect(partsOf(db)).toEqual([1, 2, 3]);
    db.prepare("INSERT INTO log (time_stamp, level, message) VALUES (?, 'Error', 'from another writer')").run(T0);
    const id = db.prepare('SELECT last_id FROM log_stats').pluck().get() as number;
    expect(db.prepare('SELECT count(*) FROM log_p3 WHERE id = ?').pluck().get(id)).toBe(1); // the head
    db.prepare("UPDATE log SET message = 'entry renamed' WHERE message = 'entry 5 of three days'").run();
    db.prepare("DELETE FROM log WHERE message = 'entry 150 of three days'").run();
    expect(count(db, "message = 'entry renamed'")).toBe(1);
    expect(count(db, "message = 'entry 150 of three days'")).toBe(0);
    expectCountsExact(db);
    indexLog(db);
    expectIndexExact(db);
    const f1 = db.prepare(`SELECT rowid FROM log_p1_fts WHERE log_p1_fts MATCH '"renamed"'`).pluck().all();
    expect(f1).toEqual(db.prepare("SELECT id FROM log_p1 WHERE message = 'entry renamed'").pluck().all());
    expect(db.prepare(`SELECT count(*) FROM log_p1_fts WHERE log_p1_fts MATCH '"entry 5 of"'`).pluck().get()).toBe(0);
    db.close();
  });
});

describe('pages across partitions equal a reference query on the view', () => {
  it('sorted by TimeStamp or Id (partitions read one after another), or otherwise (merged); with skip, select, filters; and once partitions overlap in time', async () => {
    const s = await startTestService();
    try {
      const db = s.db;
      writeLogEntries(
        db,
        entries(3000, T0, T0 + 6 * DAY, (i) => `entry ${i} on WS-${i % 17}`, 3),
      );
      const check = async (label: string) => {
        for (const [sort, order] of [
          ['', 'time_stamp DESC, id DESC'],
          ['TimeStamp', 'time_stamp ASC, id ASC'],
          ['Id desc', 'id DESC'],
          ['Id', 'id ASC'],
          ['Level desc, Message', 'level DESC, message ASC, id ASC'],
        ]) {
          for (const [filter, where] of [
            ['', '1'],
            ['Level = "Warning"', "level = 'Warning'"],
            ['Message.Contains("WS-3")', "instr(message, 'WS-3') > 0"],
          ]) {
            for (const [take, skip] of [
              [100, 0],
              [1000, 0],
              [50, 1490],
            ] as const) {
              const query: Record<string, string | number> = { take, skip, select: 'Id, TimeStamp' };
              if (sort) query.sort = sort;
              if (filter) query.filter = filter;
              const r = await http(s, 'GET', `/v1/log${q(query)}`, { key: s.adminKey });
              const want = db.prepare(`SELECT id FROM log WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?`).pluck().all(take, skip);
              expect(
                r.body.logEntries.map((e: { id: number }) => e.id),
                `${label} ${JSON.stringify(query)}`,
              ).toEqual(want);
              expect(Object.keys(r.body.logEntries[0] ?? { id: 1, timeStamp: '' }).sort()).toEqual(['id', 'timeStamp']);
            }
          }
        }
      };
      await check('partitions apart');
      // late entries: the head now overlaps every partition in time
      for (const t of [T0 + 5, T0 + 2 * DAY, T0 + 2 * DAY]) writeLog(db, new Date(t), 'Warning', 'late on WS-3', {});
      await check('partitions overlapping');
    } finally {
      await s.close();
    }
  });
});

describe('the reply of GET /v1/log', () => {
  it("is, byte for byte, what the route's response schema serializes (the route writes it with JSON.stringify)", async () => {
    const s = await startTestService();
    const ref = Fastify();
    try {
      writeLogEntries(s.db, [
        ...entries(300, T0, T0 + 2 * DAY, (i) => `entry ${i}: "quoted" \\ back\tslash é 日本 \u2028 ${'x'.repeat(i % 40)}`),
        [T0 + 3 * DAY, 'Error', 'with an exception', '{A}', 'System.Exception: x\n   at y', '{"A":1,"B":"\\"}'],
      ]);
      // the same schema, serialized by fastify as it would for the route
      ref.get(
        '/',
        { schema: { response: { 200: listResponse('logEntries', 'totalLogEntriesCount', selectable(LogEntrySchema)) } } },
        (req) => JSON.parse(String((req.query as { body: string }).body)),
      );
      for (const query of [
        {},
        { select: 'Id, Message' },
        { select: 'TimeStamp, Properties, Exception', filter: 'Level = "Error"' },
        { take: 0 },
      ] as Record<string, string | number>[]) {
        const res = await request(`${s.url}/v1/log${q({ take: 1000, ...query })}`, { headers: { 'x-api-key': s.adminKey } });
        expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
        const text = await res.body.text();
        const want = await ref.inject({ method: 'GET', url: '/', query: { body: text } });
        expect(text, JSON.stringify(query)).toBe(want.body);
      }
    } finally {
      await ref.close();
      await s.close();
    }
  });
});

describe('Message.Contains from the full-text index equals the byte-exact substring test', () => {
  let svc: TestService;
  const prepared: string[] = [];
  const ALPHABET = ['a', 'b', 'A', 'B', ' ', '-', '"', "'", '\\', 'é', 'É', '日', '本', '1', '2', '%', '_', '*', '(', ')', ':'];
  beforeAll(async () => {
    svc = await startTestService();
    const db = svc.db;
    // five days of messages over a small alphabet (repeats, case pairs, quotes, wildcards, non-ASCII) and a few fixed ones
    writeLogEntries(
      db,
      entries(
        6000,
        T0,
        T0 + 5 * DAY,
        (i, rnd) => {
          if (i % 1000 === 7) return 'the rare needle Zq-9 is here';
          if (i % 3 === 0) return `common prefix ${i % 10} ab`;
          return Array.from({ length: 4 + Math.floor(rnd() * 20) }, () => ALPHABET[Math.floor(rnd() * ALPHABET.length)]).join('');
        },
        5,
      ),
    );
    const real = db.prepare.bind(db);
    db.prepare = ((sql: string) => (prepared.push(sql), real(sql))) as typeof db.prepare;
  });
  afterAll(() => svc?.close());

  /** GET with `Message.Contains(needle)` (a JSON string literal: its escapes are the filter's) in [start, end), all matches by id, against instr. */
  async function expectSame(needle: string, extra: { startDate?: string; endDate?: string; sort?: string } = {}): Promise<void> {
    const filter = `Message.Contains(${JSON.stringify(needle)})`;
    const r = await http(svc, 'GET', `/v1/log${q({ filter, sort: 'Id desc', take: 1000, ...extra })}`, { key: svc.adminKey });
    expect(r.status, filter).toBe(200);
    const [a, b] = [Date.parse(extra.startDate ?? '1970-01-01T00:00:00Z'), Date.parse(extra.endDate ?? '2100-01-01T00:00:00Z')];
    const order = extra.sort === 'TimeStamp desc' ? 'time_stamp DESC, id ASC' : 'id DESC';
    const want = svc.db
      .prepare(`SELECT id FROM log WHERE instr(message, ?) > 0 AND time_stamp >= ? AND time_stamp < ? ORDER BY ${order}`)
      .pluck()
      .all(needle, a, b);
    expect(
      r.body.logEntries.map((e: { id: number }) => e.id),
      filter,
    ).toEqual(want.slice(0, 1000));
    expect(r.body.totalLogEntriesCount, filter).toBe(want.length);
    const t = await http(svc, 'GET', `/v1/log${q({ filter, take: 0, ...extra })}`, { key: svc.adminKey });
    expect(t.body.totalLogEntriesCount, `${filter} take=0`).toBe(want.length);
  }
  const needles = () => {
    const rnd = rng(99);
    const msgs = svc.db.prepare('SELECT message FROM log ORDER BY id').pluck().all() as string[];
    const out = [
      'Zq-9',
      'the rare needle Zq-9',
      'prefix',
      'common prefix 3 ab',
      'aB',
      'Ab',
      'ab',
      'a',
      'é',
      '日本',
      '"',
      '""a',
      "'",
      '\\',
      '%',
      '_',
      'a*',
      'a\0b',
      'xyz-none',
      '  ',
    ];
    for (let i = 0; i < 60; i++) {
      const m = [...msgs[Math.floor(rnd() * msgs.length)]!];
      const from = Math.floor(rnd() * m.length);
      out.push(m.slice(from, from + 1 + Math.floor(rnd() * 6)).join(''));
    }
    // case variants of found substrings: must not match what differs in case
    for (const s of out.slice(20, 40)) out.push(s.toUpperCase(), s.toLowerCase());
    return out;
  };

  // first: a statement is prepared (and seen by the spy) on its first use only
  it('the plans: a rare needle is found from the index, a common one by reading the log in the page order', async () => {
    indexLog(svc.db);
    const pages = () => prepared.filter((s) => /^SELECT .* FROM log_p\d+ l .* ORDER BY .* LIMIT \?( OFFSET \?)?$/s.test(s));
    prepared.length = 0;
    await expectSame('the rare needle Zq');
    expect(pages().some((s) => /_fts MATCH/.test(s))).toBe(true);
    prepared.length = 0;
    await expectSame('common pre', { sort: 'TimeStamp desc' });
    expect(pages().length).toBeGreaterThan(0);
    expect(pages().every((s) => /instr\(l\.message, \?\)/.test(s) && !/_fts MATCH/.test(s))).toBe(true);
  });

  it('everything indexed, for any needle (short, with quotes, wildcards, NUL, non-ASCII, case variants)', async () => {
    indexLog(svc.db);
    expectIndexExact(svc.db);
    for (const n of needles()) await expectSame(n);
  });

  it('with a date range, and with entries not yet indexed (the tail) or deleted and changed since', async () => {
    const db = svc.db;
    for (const n of ['Zq-9', 'common prefix', 'ab', 'é'])
      await expectSame(n, { startDate: iso(T0 + DAY + 7 * H), endDate: iso(T0 + 4 * DAY) });
    // new entries (not indexed), some deleted, some changed through the view
    writeLogEntries(
      db,
      entries(400, T0 + 4 * DAY, T0 + 5 * DAY, (i) => (i % 50 === 0 ? 'late Zq-9 entry' : `late ${i} ab`), 6),
    );
    db.prepare("DELETE FROM log WHERE message = 'the rare needle Zq-9 is here' AND id % 2 = 0").run();
    db.prepare(
      "UPDATE log SET message = 'changed: Zq-9 no more' WHERE id IN (SELECT id FROM log WHERE message LIKE 'late Zq-9%' LIMIT 3)",
    ).run();
    db.prepare("UPDATE log SET message = 'now has Zq-9' WHERE id = (SELECT min(id) FROM log WHERE message LIKE 'common prefix%')").run();
    expect(db.prepare('SELECT count(*) FROM log_parts p WHERE fts_upto < (SELECT max(id) FROM log)').pluck().get()).toBeGreaterThan(0);
    for (const n of ['Zq-9', 'late', 'changed', 'common prefix', 'ab']) await expectSame(n);
    indexLogBatch(db, 150); // partly
    for (const n of ['Zq-9', 'late', 'ab']) await expectSame(n);
    indexLog(db);
    expectIndexExact(db);
    for (const n of ['Zq-9', 'late', 'now has', 'ab']) await expectSame(n);
  });
});

describe('a purge by date takes whole partitions out and drops their tables', () => {
  /** A service over a log of `days` days of `perDay` entries, a partition each, indexed. */
  async function logOfDays(days: number, perDay: number, file?: string): Promise<TestService> {
    const s = file
      ? await startService({
          dbPath: file,
          port: 0,
          authFailLimit: { limit: 0, windowMs: 60_000 },
          secretKey: Buffer.alloc(32, 7).toString('base64'),
        }).then((x) => Object.assign(x, { adminKey: x.issuedKeys[0]!.key }))
      : await startTestService();
    writeLogEntries(
      s.db,
      entries(days * perDay, T0, T0 + days * DAY, (i) => `entry ${i} on WS-${i % 17}`),
    );
    indexLog(s.db);
    return s;
  }
  const del = (s: TestService, query: string) => http(s, 'DELETE', `/v1/log${query}`, { key: s.adminKey });

  it('whole days: their partitions go, in one transaction with one entry; ids, counts and the rest exact', async () => {
    const s = await logOfDays(6, 500);
    try {
      const db = s.db;
      expect(partsOf(db)).toEqual([1, 2, 3, 4, 5, 6]);
      const survivors = db.prepare('SELECT * FROM log WHERE time_stamp >= ? ORDER BY id').all(T0 + 4 * DAY);
      const last = db.prepare('SELECT last_id FROM log_stats').pluck().get() as number;
      const r = await del(s, q({ endDate: iso(T0 + 4 * DAY) }));
      expect(r.body.deletedLogCount).toBe(2000);
      expect(partsOf(db).slice(0, 2)).toEqual([5, 6]); // and the head of today, for the purge's entry
      expect(tables(db)).not.toContain('log_p1');
      expect(tables(db)).not.toContain('log_p4');
      expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name GLOB 'log_p[1-4]_*'").pluck().get()).toBe(0);
      expect(db.prepare('SELECT count(*) FROM log_drops').pluck().get()).toBe(0);
      expect(db.prepare('SELECT * FROM log WHERE id <= ? ORDER BY id').all(last)).toEqual(survivors);
      const audit = db.prepare('SELECT message FROM log WHERE id > ?').pluck().all(last);
      expect(audit).toEqual([expect.stringContaining('purged 2000 log entries')]);
      expectCountsExact(db);
      expectIndexExact(db);
      const page = await http(s, 'GET', `/v1/log${q({ filter: 'Message.Contains("WS-3")', take: 0 })}`, { key: s.adminKey });
      expect(page.body.totalLogEntriesCount).toBe(count(db, "instr(message, 'WS-3') > 0"));
    } finally {
      await s.close();
    }
  });

  it('whole days and most of another (windows): an entry before and after; the head itself taken out, writes go on', async () => {
    const s = await logOfDays(4, 7500);
    try {
      const db = s.db;
      // up to a third into day 3: partitions 1 and 2 whole; of 3, 2500 go (more than one window) and 5000 stay (windows)
      const end = T0 + 2 * DAY + DAY / 3;
      const want = count(db, 'time_stamp < ?', end);
      const last = db.prepare('SELECT last_id FROM log_stats').pluck().get() as number;
      const r = await del(s, q({ endDate: iso(end) }));
      expect(r.body.deletedLogCount).toBe(want);
      expect(count(db, 'time_stamp < ?', end)).toBe(0);
      expect(tables(db)).not.toContain('log_p2');
      const audit = db.prepare('SELECT message FROM log WHERE id > ? ORDER BY id').pluck().all(last);
      expect(audit).toEqual([
        expect.stringContaining(`purging ${want} log entries`),
        expect.stringContaining(`purged ${want} log entries`),
      ]);
      expectCountsExact(db);
      // everything up to tomorrow, the head of today included: a new head takes the writes
      const all = count(db);
      const r2 = await del(s, q({ startDate: iso(0), endDate: iso(Date.now() + DAY) }));
      expect(r2.body.deletedLogCount).toBe(all);
      expect(count(db)).toBe(1); // its own entry
      writeLog(db, new Date(), 'Information', 'after', {});
      expect(count(db)).toBe(2);
      expectCountsExact(db);
    } finally {
      await s.close();
    }
  });

  it('tables a stop left undropped are dropped at the next start', async () => {
    const file = join(tempDir('lic-drops-'), 'log.db');
    const s = await logOfDays(3, 200, file);
    const db = s.db;
    db.transaction(() => detachParts(db, [1, 2]))();
    expect(db.prepare('SELECT name FROM log_drops ORDER BY name').pluck().all()).toEqual(['log_p1', 'log_p1_fts', 'log_p2', 'log_p2_fts']);
    expect(count(db)).toBe(200);
    await s.close();
    const again = await startService({
      dbPath: file,
      port: 0,
      authFailLimit: { limit: 0, windowMs: 60_000 },
      secretKey: Buffer.alloc(32, 7).toString('base64'),
    });
    try {
      for (let i = 0; again.db.prepare('SELECT count(*) FROM log_drops').pluck().get() !== 0; i++) {
        if (i > 400) throw new Error('not dropped');
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(tables(again.db)).toEqual(['log_p3']);
      expect(count(again.db)).toBe(200);
      expectCountsExact(again.db);
    } finally {
      await again.close();
    }
  });

  it('deleteAll: every partition goes, one empty head is left, the ids go on', async () => {
    const s = await logOfDays(3, 100);
    try {
      const db = s.db;
      const last = db.prepare('SELECT last_id FROM log_stats').pluck().get() as number;
      expect((await del(s, '?deleteAll=true')).body.deletedLogCount).toBe(300);
      expect(tables(db)).toEqual(['log_p4']);
      expect(db.prepare('SELECT id FROM log').pluck().all()).toEqual([last + 1]);
      expectCountsExact(db);
    } finally {
      await s.close();
    }
  });
});
