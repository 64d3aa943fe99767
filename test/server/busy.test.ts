/**
 * The database locked by another process (a real second process holding `BEGIN IMMEDIATE`
 * on the service's file): a write waits a bounded time without holding up other requests,
 * then gets 503 (code 14, Retry-After) having changed nothing; the spell is logged — one
 * line when it begins and one when it ends (stderr of `lic serve`), one Warning entry in
 * the service's log once it can be written — and writes go through again after release.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUSY_RETRY_AFTER_S } from '../../src/server/busy.js';
import { startService, type RunningService } from '../../src/server/index.js';
import { lockWanted } from '../../src/server/lock-wanted.js';
import { envFor, runCli } from '../helpers/cli.js';
import { holdWriteLock } from '../helpers/lock-holder.js';
import { http } from '../helpers/service.js';
import { tempDir } from '../helpers/temp.js';

let svc: RunningService;
let key = '';
const warnings: string[] = [];
const dbPath = join(tempDir('lic-busy-'), 'lic.db');
beforeAll(async () => {
  svc = await startService({
    dbPath,
    port: 0,
    authFailLimit: { limit: 0, windowMs: 60_000 },
    secretKey: Buffer.alloc(32, 1).toString('base64'),
    warn: (line) => warnings.push(line),
  });
  key = svc.issuedKeys[0]!.key;
});
afterAll(() => svc.close());

const BUSY = {
  success: false,
  code: 14,
  message: `the database is locked by another process (a write transaction held outside the service); nothing was changed`,
};
const count = (sql: string, ...p: unknown[]) =>
  svc.db
    .prepare(sql)
    .pluck()
    .get(...p) as number;

describe('a write lock held by another process', () => {
  it('writes get an enveloped 503 with Retry-After after a bounded wait, reads and 401s go on meanwhile, nothing is stored', async () => {
    const made = await http(svc, 'POST', '/v1/resources', { key, body: { resource: { name: 'before the lock' } } });
    expect(made.status).toBe(200);
    const logBefore = count('SELECT count(*) FROM log');
    const lock = await holdWriteLock(dbPath);
    try {
      const order: string[] = [];
      const write = http(svc, 'POST', '/v1/resources', { key, body: { resource: { name: 'during the lock' } } }).then((r) => {
        order.push('write');
        return r;
      });
      // while the write waits, the service answers others: a read, a bad key (its 401, not a 503)
      const read = await http(svc, 'GET', '/v1/resources?take=1', { key });
      order.push('read');
      const bad = await http(svc, 'GET', '/v1/resources', { key: 'api_000000000000000000000000' });
      order.push('401');
      // counted among the writes waiting for the lock (which the log's drop worker lets in first), until it is answered
      expect(lockWanted(svc.db)[0]).toBe(1);
      const w = await write;
      expect(lockWanted(svc.db)[0]).toBe(0);
      expect(order).toEqual(['read', '401', 'write']);
      expect(read.status).toBe(200);
      expect(bad.status).toBe(401);
      expect(w.status).toBe(503);
      expect(w.body).toEqual(BUSY);
      expect(w.headers['retry-after']).toBe(String(BUSY_RETRY_AFTER_S));
      // every kind of write: update, delete, an API key, a log purge (which writes outside a single transaction)
      const more = await Promise.all([
        http(svc, 'PUT', '/v1/resources', { key, body: { resource: { id: made.body.resourceId, name: 'renamed' } } }),
        http(svc, 'DELETE', `/v1/resources/${made.body.resourceId}`, { key }),
        http(svc, 'POST', '/v1/api-keys', { key, body: { apiKey: { permissions: 1 } } }),
        http(svc, 'DELETE', `/v1/log?filter=${encodeURIComponent('Level = "Debug"')}`, { key }),
      ]);
      for (const r of more) {
        expect(r.status).toBe(503);
        expect(r.body).toEqual(BUSY);
        expect(r.headers['retry-after']).toBe(String(BUSY_RETRY_AFTER_S));
      }
      // one line when the spell began, however many writes it refused
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(
        /^the database is locked by another process \(a write transaction held outside the service\): POST \/v1\/resources was refused with 503 after waiting 2000 ms/,
      );
    } finally {
      await lock.release();
    }
    // nothing of the refused writes is there; the resource is as it was
    expect(count('SELECT count(*) FROM resources WHERE name = ?', 'during the lock')).toBe(0);
    expect(count('SELECT count(*) FROM resources WHERE id = ? AND name = ?', made.body.resourceId, 'before the lock')).toBe(1);
    // the spell ends by itself once the lock is released (no write needed): its line and its one log entry
    await expect.poll(() => warnings.length, { timeout: 10_000, interval: 100 }).toBe(2);
    expect(warnings[1]).toBe('the database is writable again; 5 write(s) were refused with 503 while another process held its lock');
    const entries = svc.db
      .prepare("SELECT message, properties FROM log WHERE level = 'Warning' AND message LIKE 'The database was locked%'")
      .all() as {
      message: string;
      properties: string;
    }[];
    expect(entries).toHaveLength(1);
    expect(JSON.parse(entries[0]!.properties)).toMatchObject({ Refused: 5, WaitMs: 2000 });
    // the holder's own row (committed on release), the spell's entry, the bad key's Warning (written once the lock
    // is gone, by the guard's retry), and no audit entry of a refused write
    await expect.poll(() => count('SELECT count(*) FROM log'), { timeout: 5_000, interval: 100 }).toBe(logBefore + 3);
    expect(count("SELECT count(*) FROM log WHERE message LIKE 'Authentication failed for %'")).toBe(1);
    // writes go through again
    const after = await http(svc, 'POST', '/v1/resources', { key, body: { resource: { name: 'after the lock' } } });
    expect(after.status).toBe(200);
  });

  it("lic itself, met by the lock: exit 1, one line with the envelope's message and when to retry", async () => {
    const lock = await holdWriteLock(dbPath);
    try {
      const r = await runCli(['resources', 'create', '--name', 'from the CLI', '--type', 'note'], { env: envFor(svc, key) });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`lic: ${BUSY.message}; retry after ${BUSY_RETRY_AFTER_S} s (HTTP 503, code 14, POST /v1/resources)\n`);
    } finally {
      await lock.release();
    }
    expect(count('SELECT count(*) FROM resources WHERE name = ?', 'from the CLI')).toBe(0);
  });

  it('a lock released within the wait costs only time: the write then succeeds', async () => {
    const lock = await holdWriteLock(dbPath);
    const write = http(svc, 'POST', '/v1/assemblies', { key, body: { assembly: { name: 'Waited', version: '1.0.0.0' } } });
    // released while the write is waiting (a read round trip later)
    await http(svc, 'GET', '/v1/assemblies?take=0', { key });
    await lock.release();
    const r = await write;
    expect(r.status).toBe(200);
    expect(count('SELECT count(*) FROM assemblies WHERE name = ?', 'Waited')).toBe(1);
  });

  it('a 500 whose log entry cannot be written either still reaches the operator (the warn line)', async () => {
    warnings.length = 0;
    // what a full disk does to every insert into the log (the audit entry and the 500's own entry); the log is a view: INSTEAD OF
    svc.db.exec("CREATE TRIGGER full_disk INSTEAD OF INSERT ON log BEGIN SELECT RAISE(ABORT, 'disk full'); END");
    try {
      const r = await http(svc, 'POST', '/v1/resources', { key, body: { resource: { name: 'no room' } } });
      expect(r.status).toBe(500);
      expect(r.body).toEqual({ success: false, code: 13, message: 'internal error in the service; see its log' });
    } finally {
      svc.db.exec('DROP TRIGGER full_disk');
    }
    expect(warnings).toEqual(['internal error in POST /v1/resources: disk full; it could not be written to the log (disk full)']);
  });
});
