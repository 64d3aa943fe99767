/** `/v1/log` over raw HTTP: contract §5 and §6. */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addUserWithKey, http, startTestService, type TestService } from '../helpers/service.js';

const T0 = Date.parse('2025-01-18T10:00:00.000Z');
const H = 3_600_000;
const clock = { t: T0 };
let svc: TestService;
let sales: string;
let manager: string;
let customer: string;

/** Writes one audit entry at `at` (a key insert) and returns the new key's id. */
async function writeAt(at: number): Promise<number> {
  clock.t = at;
  const r = await http(svc, 'POST', '/v1/api-keys', { key: svc.adminKey, body: { apiKey: { permissions: 1 } } });
  expect(r.status).toBe(200);
  return r.body.apiKeyId;
}
const get = (q = '', key = svc.adminKey, path = '/v1/log') => http(svc, 'GET', `${path}${q}`, { key });
const ids = async (q = '') => (await get(q)).body.logEntries.map((e: { id: number }) => e.id);

/** A fresh service on the test clock, with a Sales, a LicenseManager and a Customer key: no describe depends on another's entries. */
async function start(): Promise<void> {
  clock.t = T0;
  svc = await startTestService({ now: () => new Date(clock.t) });
  sales = await addUserWithKey(svc, 'sales', 'Sales', 7);
  manager = await addUserWithKey(svc, 'lm', 'LicenseManager', 7);
  customer = await addUserWithKey(svc, 'cust', 'Customer', 7, 'C-00000001');
}

describe('GET /v1/log', () => {
  afterAll(() => svc.close());
  beforeAll(async () => {
    await start();
    // ids 1..3 at 10:00, 11:00, 12:00; id 4 a Warning at 13:00
    for (let i = 0; i < 3; i++) await writeAt(T0 + i * H);
    clock.t = T0 + 3 * H;
    expect((await http(svc, 'GET', '/v1/api-keys', { key: 'api_111111111111111111111111' })).status).toBe(401);
  });

  it('entries carry exactly the LogEntry fields; newest first by default', async () => {
    const r = await get();
    expect(r.body).toMatchObject({ success: true, code: 0, message: 'OK', totalLogEntriesCount: 4 });
    expect(r.body.logEntries.map((e: { id: number }) => e.id)).toEqual([4, 3, 2, 1]);
    for (const e of r.body.logEntries) {
      expect(Object.keys(e).sort()).toEqual(['exception', 'id', 'level', 'message', 'messageTemplate', 'properties', 'timeStamp']);
      expect(typeof e.properties).toBe('string');
      expect(typeof JSON.parse(e.properties)).toBe('object');
      expect(e.timeStamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }
  });

  it('GET /v1/logs is an alias with the same reply', async () => {
    const a = await get('?take=3');
    const b = await get('?take=3', svc.adminKey, '/v1/logs');
    expect(b.status).toBe(200);
    expect(b.body).toEqual(a.body);
  });

  it('filter Level="Warning" (the original\'s example) and other spellings', async () => {
    for (const f of ['Level="Warning"', 'level == "Warning"', 'Level = "Warning" && Message.Contains("unknown")']) {
      const r = await get(`?filter=${encodeURIComponent(f)}`);
      expect(r.status, f).toBe(200);
      expect(r.body.logEntries.map((e: { level: string }) => e.level)).toEqual(['Warning']);
      expect(r.body.totalLogEntriesCount).toBe(1);
    }
    expect(await ids(`?filter=${encodeURIComponent('Level != "Warning"')}`)).toEqual([3, 2, 1]);
  });

  it('startDate is inclusive, endDate exclusive; a plain date is midnight UTC', async () => {
    const q = (s?: string, e?: string) => `?${new URLSearchParams({ ...(s ? { startDate: s } : {}), ...(e ? { endDate: e } : {}) })}`;
    expect(await ids(q('2025-01-18T11:00:00Z', '2025-01-18T12:00:00Z'))).toEqual([2]);
    expect(await ids(q('2025-01-18T11:00:00.000Z'))).toEqual([4, 3, 2]);
    expect(await ids(q(undefined, '2025-01-18T11:00:00Z'))).toEqual([1]);
    expect(await ids(q('2025-01-18T13:00:00+02:00'))).toEqual([4, 3, 2]); // 11:00Z
    expect(await ids(q('2025-01-18', '2025-01-19'))).toEqual([4, 3, 2, 1]);
    expect(await ids(q('2025-01-19'))).toEqual([]);
    const r = await get(q('2025-01-18T11:00:00Z', '2025-01-18T12:00:00Z'));
    expect(r.body.totalLogEntriesCount).toBe(1);
  });

  it('sort, select, take and skip (contract §5)', async () => {
    expect(await ids('?sort=TimeStamp%20asc')).toEqual([1, 2, 3, 4]);
    const sel = await get('?select=Id,Level&take=1');
    expect(sel.body.logEntries).toEqual([{ id: 4, level: 'Warning' }]);
    const page = await get('?take=2&skip=1');
    expect(page.body.logEntries.map((e: { id: number }) => e.id)).toEqual([3, 2]);
    expect(page.body.totalLogEntriesCount).toBe(4);
  });

  it.each([
    ['?take=1001', 'take must be <= 1000'],
    ['?take=-1', 'take must be >= 0'],
    ['?take=abc', 'take must be integer'],
    ['?skip=-1', 'skip must be >= 0'],
    ['?skip=2147483648', 'skip must be <= 2147483647'],
    ['?startDate=yesterday', 'startDate must be an RFC 3339 timestamp'],
    ['?startDate=2025-02-30', 'startDate must be an RFC 3339 timestamp'],
    ['?endDate=2025-01-18T24:00:00Z', 'endDate must be an RFC 3339 timestamp'],
    ['?endDate=2025-01-18T10:00:00', 'endDate must be an RFC 3339 timestamp'],
    ['?filter=Level%20%3D', 'filter'],
    ['?filter=Secret%20%3D%201', 'Secret'],
    ['?sort=Nope', 'Nope'],
  ])('%s is 400 code 3: %s', async (q, msg) => {
    const r = await get(q);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, code: 3 });
    expect(r.body.message).toContain(msg);
  });

  it('take out of range names the limit either way', async () => {
    for (const t of ['1001', '-1']) expect((await get(`?take=${t}`)).body.message).toContain('1000');
  });

  it('readable by Administrator, LicenseManager and Sales; 403 for Customer', async () => {
    expect((await get('', manager)).status).toBe(200);
    expect((await get('', sales)).status).toBe(200);
    const c = await get('', customer);
    expect(c.status).toBe(403);
    expect(c.body).toMatchObject({ success: false, code: 7 });
    expect(c.body.message).toContain('allowed roles: Administrator, LicenseManager, Sales');
  });
});

describe('DELETE /v1/log', () => {
  // each purge on a service of its own, with the same four entries
  beforeEach(async () => {
    await start();
    for (let i = 0; i < 4; i++) await writeAt(T0 + i * H); // ids 1..4 at 10:00..13:00
    clock.t = T0 + 5 * H;
  });
  afterEach(() => svc.close());
  const del = (q: string, key = svc.adminKey) => http(svc, 'DELETE', `/v1/log${q}`, { key });

  it.each([
    ['', 'needs a criterion'],
    ['?deleteAll=false', 'needs a criterion'],
    ['?deleteAll=yes', 'deleteAll must be boolean'],
    ['?id=0', 'id must be >= 1'],
    ['?id=2147483648', 'id must be <= 2147483647'],
    ['?id=1.5', 'id must be integer'],
    ['?startDate=nope', 'startDate must be an RFC 3339 timestamp'],
    ['?filter=Id%20%3E', 'filter'],
    ['?filter=', 'filter is empty'],
    ['?filter=%20%20', 'filter is empty'],
    ['?filter=&deleteAll=true', 'filter is empty'],
  ])('%s is 400 code 3 and deletes nothing', async (q, msg) => {
    const r = await del(q);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, code: 3 });
    expect(r.body.message).toContain(msg);
    expect(await ids()).toEqual([4, 3, 2, 1]);
  });

  it("deleteAll=true: everything, then the purge's own entry", async () => {
    const r = await del('?deleteAll=true');
    expect(r.body).toEqual({ success: true, code: 0, message: 'OK', deletedLogCount: 4 });
    const left = (await get()).body.logEntries;
    expect(left).toHaveLength(1);
    expect(left[0]).toMatchObject({
      id: 5,
      level: 'Information',
      message: 'DELETE /v1/log by API key 1 of user admin: purged 4 log entries',
      timeStamp: '2025-01-18T15:00:00.000Z',
    });
    expect(JSON.parse(left[0].properties)).toEqual({
      Method: 'DELETE',
      Path: '/v1/log',
      ApiKeyId: 1,
      OwnerId: 'admin',
      DeletedLogCount: 4,
      Criteria: JSON.stringify({ deleteAll: true }),
    });
  });

  it('id: that one entry', async () => {
    expect((await del('?id=2')).body.deletedLogCount).toBe(1);
    expect(await ids()).toEqual([5, 4, 3, 1]);
  });

  it('startDate/endDate: start inclusive, end exclusive', async () => {
    expect((await del('?startDate=2025-01-18T11:00:00Z&endDate=2025-01-18T13:00:00Z')).body.deletedLogCount).toBe(2);
    // so few entries go in one transaction, with its one entry: 5, "purged 2 log entries"
    expect(await ids()).toEqual([5, 4, 1]);
    expect((await get('?take=1')).body.logEntries[0].message).toContain('purged 2 log entries');
  });

  it('filter AND dates: only entries matching all', async () => {
    const f = encodeURIComponent('Id >= 2');
    expect((await del(`?filter=${f}&endDate=2025-01-18T13:00:00Z`)).body.deletedLogCount).toBe(2);
    expect(await ids()).toEqual([6, 5, 4, 1]);
  });

  it('filter only', async () => {
    // the purge's own "purging" entry (5) matches the filter too, but came after the purge began: it stays
    expect((await del(`?filter=${encodeURIComponent('Level = "Information"')}`)).body.deletedLogCount).toBe(4);
    expect(await ids()).toEqual([6, 5]);
  });

  it('Administrator only: LicenseManager and Sales are 403, nothing deleted', async () => {
    for (const key of [manager, sales]) {
      const r = await del('?deleteAll=true', key);
      expect(r.status).toBe(403);
      expect(r.body.code).toBe(7);
    }
    expect(await ids()).toEqual([4, 3, 2, 1]);
  });
});
