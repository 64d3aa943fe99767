/**
 * Audit in the transaction: a write and its audit entry commit together or
 * not at all. The log insert is made to fail with a trigger (what a full disk or a
 * corrupt log table would do): every write must then be rolled back with a 500.
 */
import { describe, expect, it } from 'vitest';
import { http } from '../helpers/service.js';
import { useService } from '../helpers/fixtures.js';

const { svc } = useService();

// the log's Error entries (the 500s say what failed) are not what is being counted
const count = (table: string) =>
  svc.db
    .prepare(`SELECT count(*) FROM ${table}${table === 'log' ? " WHERE level <> 'Error'" : ''}`)
    .pluck()
    .get() as number;
// the log is a view over its partitions: a trigger on it is INSTEAD OF (and the RAISE undoes the insert ours made)
const failAudit = () =>
  svc.db.exec(
    "CREATE TRIGGER fail_audit INSTEAD OF INSERT ON log WHEN NEW.level = 'Information' BEGIN SELECT RAISE(ABORT, 'disk full'); END",
  );
const healAudit = () => svc.db.exec('DROP TRIGGER fail_audit');

describe('a write whose audit entry cannot be written is rolled back', () => {
  it('inserts, updates and deletes of keys, resources and assemblies: 500 and nothing changed', async () => {
    const key = svc.adminKey;
    const res = (await http(svc, 'POST', '/v1/resources', { key, body: { resource: { name: 'r1', type: 'email' } } })).body
      .resourceId as number;
    const asm = (await http(svc, 'POST', '/v1/assemblies', { key, body: { assembly: { name: 'A', version: '1.0.0.0' } } })).body
      .assemblyId as number;
    const before = { keys: count('api_keys'), resources: count('resources'), assemblies: count('assemblies'), log: count('log') };
    failAudit();
    try {
      const calls: [string, string, unknown][] = [
        ['POST', '/v1/api-keys', { apiKey: { name: 'k', permissions: 1 } }],
        ['PUT', '/v1/api-keys', { apiKey: { id: 1, name: 'renamed' } }],
        ['POST', '/v1/resources', { resource: { name: 'r2' } }],
        ['PUT', '/v1/resources', { resource: { id: res, name: 'renamed' } }],
        ['DELETE', `/v1/resources/${res}`, undefined],
        ['POST', '/v1/assemblies', { assembly: { name: 'B', version: '1.0.0.0' } }],
        ['PUT', '/v1/assemblies', { assembly: { id: asm, name: 'renamed' } }],
        ['DELETE', `/v1/assemblies/${asm}`, undefined],
      ];
      for (const [method, path, body] of calls) {
        const r = await http(svc, method, path, { key, body });
        expect(r.status, `${method} ${path}`).toBe(500);
        expect(r.body).toMatchObject({ success: false, code: 13 });
        expect(JSON.stringify(r.body)).not.toContain('disk full');
      }
    } finally {
      healAudit();
    }
    expect({ keys: count('api_keys'), resources: count('resources'), assemblies: count('assemblies'), log: count('log') }).toEqual(before);
    expect(svc.db.prepare('SELECT name FROM api_keys WHERE id = 1').pluck().get()).toBe('bootstrap');
    expect(svc.db.prepare('SELECT name FROM resources WHERE id = ?').pluck().get(res)).toBe('r1');
    // healed: the same write now goes through with its entry
    expect((await http(svc, 'DELETE', `/v1/resources/${res}`, { key })).status).toBe(200);
    expect(count('log')).toBe(before.log + 1);
  });

  it('a log purge by id or deleteAll whose entry fails deletes nothing', async () => {
    const key = svc.adminKey;
    const n = count('log');
    expect(n).toBeGreaterThan(0);
    const first = svc.db.prepare('SELECT min(id) FROM log').pluck().get() as number;
    failAudit();
    try {
      expect((await http(svc, 'DELETE', `/v1/log?id=${first}`, { key })).status).toBe(500);
      expect((await http(svc, 'DELETE', '/v1/log?deleteAll=true', { key })).status).toBe(500);
    } finally {
      healAudit();
    }
    expect(count('log')).toBe(n);
  });
});

describe('a purge in windows leaves an entry before it starts and one after', () => {
  it('says what it will delete, then how many went', async () => {
    const key = svc.adminKey;
    const { writeLog } = await import('../../src/server/log-writer.js');
    for (let i = 0; i < 30; i++) writeLog(svc.db, new Date(Date.UTC(2025, 0, 1, 0, i)), i % 3 ? 'Debug' : 'Error', 'noise {N}', { N: i });
    const r = await http(svc, 'DELETE', `/v1/log?filter=${encodeURIComponent('Level = "Debug"')}&endDate=2025-01-02`, { key });
    expect(r.status).toBe(200);
    expect(r.body.deletedLogCount).toBe(20);
    const audit = svc.db
      .prepare("SELECT message FROM log WHERE message LIKE 'DELETE /v1/log%' ORDER BY id DESC LIMIT 2")
      .pluck()
      .all() as string[];
    expect(audit.reverse()).toEqual([
      'DELETE /v1/log by API key 1 of user admin: purging 20 log entries in windows',
      'DELETE /v1/log by API key 1 of user admin: purged 20 log entries',
    ]);
  });
});
