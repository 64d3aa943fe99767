/**
 * A page of the log written by SQLite (logPageText: json_object, the time by strftime) is,
 * byte for byte, `JSON.stringify` of the records logPage reads, for every selection, sort,
 * skip and filter, over entries whose strings hold every character JSON escapes (control
 * characters, quotes, backslashes), non-ASCII, U+2028 and a lone surrogate; a page with a time
 * it does not vouch for (before 1970) is left to logPage. The reply of `GET /v1/log` is the
 * same either way (test/server/log-partitions.test.ts checks it against the schema's serializer).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/server/db.js';
import { compileListRequest, type ListParams } from '../../src/server/list.js';
import { logPage, logPageText } from '../../src/server/log/page.js';
import { rangeScope } from '../../src/server/log/range-scope.js';
import type { TimeRange } from '../../src/server/log/totals.js';
import { writeLogEntries, type LogRow } from '../../src/server/log-writer.js';
import { logSource } from '../../src/server/routes/log.js';

const DAY = 86_400_000;
const T0 = Date.parse('2025-03-10T00:00:00.000Z');

/** Deterministic pseudo-random numbers in [0, 1). */
function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
}

/** Every control character, `"`, `\`, `/`, DEL, non-ASCII, U+2028/2029, an emoji and a lone surrogate, as pieces of strings. */
const PIECES = [
  ...Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)),
  '"',
  '\\',
  '/',
  '\x7f',
  'é',
  '日本',
  '\u2028',
  '\u2029',
  '😀',
  '\ud800',
  '{"A":1,"B":"\\""}',
  'plain text ',
];

function text(rnd: () => number, max: number): string {
  let s = '';
  for (let n = Math.floor(rnd() * max); n > 0; n--) s += PIECES[Math.floor(rnd() * PIECES.length)]!;
  return s;
}

let db: Db;
beforeAll(() => {
  db = openDatabase(':memory:');
  const rnd = rng(7);
  const levels = ['Information', 'Warning', 'Error', 'Debug'];
  const rows: LogRow[] = Array.from({ length: 1500 }, (_, i) => [
    // three days, a few entries in the same millisecond, times with 0, 1, 2 and 3 significant ms digits
    T0 + Math.floor((i / 1500) * 3 * DAY) + [0, 7, 40, 999][i % 4]!,
    levels[i % levels.length]!,
    text(rnd, 12),
    text(rnd, 4),
    i % 5 === 0 ? text(rnd, 20) : '',
    i % 3 === 0 ? '{}' : JSON.stringify({ I: i, S: text(rnd, 3) }),
  ]);
  writeLogEntries(db, rows);
});
afterAll(() => db.close());

/** Both readings of one request: logPageText's entries joined, and JSON.stringify of logPage's records. */
function both(query: ListParams, range: TimeRange = {}) {
  const list = compileListRequest(logSource.spec, { take: 1000, ...query });
  const byId = list.query.sort[0]!.field.name === 'id';
  const text = logPageText(db, list, rangeScope(db, range, byId), range);
  const page = logPage(db, list, rangeScope(db, range, byId), range);
  return { text, page };
}

describe('logPageText', () => {
  it.each<[ListParams]>([
    [{}],
    [{ sort: 'Id' }],
    [{ sort: 'Id desc', take: 250 }],
    [{ sort: 'TimeStamp asc' }],
    [{ sort: 'Level, Id desc' }],
    [{ skip: 700 }],
    [{ select: 'Id, Message' }],
    [{ select: 'TimeStamp, Properties, Exception' }],
    [{ select: 'Level' }],
    [{ filter: 'Level = "Error"', sort: 'Id desc' }],
    [{ filter: 'Message.Contains("\\\\")' }],
    [{ take: 0 }],
  ])('%j: the same bytes as JSON.stringify of the records', (query) => {
    const { text, page } = both(query);
    expect(text).toBeDefined();
    expect(text!.total).toBe(page.total);
    expect(`[${text!.entries.join(',')}]`).toBe(JSON.stringify(page.records));
    if (query.take !== 0) expect(page.records.length).toBeGreaterThan(0);
  });

  it('a time range: the same bytes', () => {
    const { text, page } = both({ sort: 'Id desc' }, { start: T0 + DAY / 2, end: T0 + 2 * DAY });
    expect(page.records.length).toBeGreaterThan(100);
    expect(`[${text!.entries.join(',')}]`).toBe(JSON.stringify(page.records));
  });

  it('a page with a time before 1970 is left to logPage (which writes it as toISOString does)', () => {
    const early = openDatabase(':memory:');
    try {
      writeLogEntries(early, [
        [-1, 'Error', 'before 1970', '', '', '{}'],
        [T0, 'Error', 'after', '', '', '{}'],
      ]);
      const list = compileListRequest(logSource.spec, { take: 1000 });
      const scope = rangeScope(early, {}, false);
      expect(logPageText(early, list, scope, {})).toBeUndefined();
      expect(logPage(early, list, scope, {}).records.map((r) => r.timeStamp)).toEqual([new Date(T0).toISOString(), '1969-12-31T23:59:59.999Z']);
    } finally {
      early.close();
    }
  });
});
