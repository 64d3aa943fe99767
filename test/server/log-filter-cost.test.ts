/**
 * A filter over a log of many daily partitions: its parameters are bound once for every
 * partition (a filter of 120 values over 300 days was 36,000 SQL variables, over SQLite's
 * 32,766: a 500), and a filter whose values × days are beyond MAX_FILTER_WORK is a 400
 * saying how to narrow it, before any SQL runs (a 4,000-character one held up every
 * other request for 15-19 s).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeLogEntries } from '../../src/server/index.js';
import type { LogRow } from '../../src/server/log-writer.js';
import { MAX_FILTER_WORK } from '../../src/server/routes/log.js';
import { http, startTestService, type TestService } from '../helpers/service.js';

const DAYS = 300;
const DAY = 86_400_000;
let svc: TestService;
let firstId = 0;
beforeAll(async () => {
  svc = await startTestService();
  const now = Date.now();
  const rows: LogRow[] = [];
  for (let d = DAYS; d >= 1; d--)
    for (let i = 0; i < 2; i++) rows.push([now - d * DAY + i, 'Information', `day ${d} entry ${i}`, 'x', '', '{}']);
  firstId = (svc.db.prepare('SELECT last_id FROM log_stats').pluck().get() as number) + 1;
  writeLogEntries(svc.db, rows);
}, 120_000);
afterAll(() => svc.close());

const ids = (n: number) => Array.from({ length: n }, (_, i) => `Id=${firstId + 2 * i}`).join(' or ');
const q = (filter: string, extra = '') => `?filter=${encodeURIComponent(filter)}${extra}`;

describe(`a filter over ${DAYS} daily partitions`, () => {
  it('the log has them', () => {
    expect(svc.db.prepare('SELECT count(*) FROM log_parts').pluck().get()).toBeGreaterThanOrEqual(DAYS);
  });

  it('120 values: the page and its total (36,000 SQL variables before: a 500)', async () => {
    const r = await http(svc, 'GET', `/v1/log${q(ids(120), '&take=5')}`, { key: svc.adminKey });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.totalLogEntriesCount).toBe(120);
    expect(r.body.logEntries).toHaveLength(5);
  });

  it('120 values sorted by message (a merge of every partition): the page and its total', async () => {
    const r = await http(svc, 'GET', `/v1/log${q(ids(120), '&take=3&skip=2&sort=Message')}`, { key: svc.adminKey });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.totalLogEntriesCount).toBe(120);
    expect(r.body.logEntries).toHaveLength(3);
  });

  it(`values × days beyond ${MAX_FILTER_WORK}: 400 naming the limit and the way out; with a narrower range it is read`, async () => {
    const many = Array.from({ length: 140 }, (_, i) => `Level="L${i}"`).join(' or ');
    const r = await http(svc, 'GET', `/v1/log${q(many)}`, { key: svc.adminKey });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, code: 3 });
    expect(r.body.message).toBe(
      `filter: 140 values over ${DAYS} days of the log is more than one request may read (values × days at most ${MAX_FILTER_WORK}); narrow startDate/endDate or use fewer values`,
    );
    const since = new Date(Date.now() - 30 * DAY).toISOString();
    const narrow = await http(svc, 'GET', `/v1/log${q(many, `&startDate=${since}`)}`, { key: svc.adminKey });
    expect(narrow.status).toBe(200);
    expect(narrow.body.totalLogEntriesCount).toBe(0);
  });

  it('DELETE by a filter of 120 values deletes those 120 (a 500 before); beyond the limit a 400 that deletes nothing', async () => {
    const before = svc.db.prepare('SELECT count(*) FROM log').pluck().get() as number;
    const many = Array.from({ length: 140 }, (_, i) => `Id=${firstId + i}`).join(' or ');
    const refused = await http(svc, 'DELETE', `/v1/log${q(many)}`, { key: svc.adminKey });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/^filter: 140 values over \d+ days/);
    expect(svc.db.prepare('SELECT count(*) FROM log').pluck().get()).toBe(before);
    const r = await http(svc, 'DELETE', `/v1/log${q(ids(120))}`, { key: svc.adminKey });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.deletedLogCount).toBe(120);
  });
});
