/**
 * The log entry of a 500 (contract §6): its `exception` is the stack trace with every file
 * named relative to where lic is installed, so a reader of the log — a Sales key included —
 * learns no absolute path of the machine.
 */
import { homedir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserWithKey, http, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let sales = '';
beforeAll(async () => {
  svc = await startTestService();
  sales = await addUserWithKey(svc, 'sales1', 'Sales', 7);
  // a fault in the service: every resource insert fails inside SQLite
  svc.db.exec("CREATE TRIGGER boom BEFORE INSERT ON resources BEGIN SELECT RAISE(ABORT, 'boom'); END");
});
afterAll(() => svc.close());

describe('the exception of a failed request, as the log shows it', () => {
  it('a Sales key reads the stack trace without an absolute path', async () => {
    const r = await http(svc, 'POST', '/v1/resources', { key: svc.adminKey, body: { resource: { name: 'x' } } });
    expect(r.status).toBe(500);
    expect(JSON.stringify(r.body)).not.toContain('boom');
    const log = await http(svc, 'GET', `/v1/log?filter=${encodeURIComponent('Level = "Error"')}`, { key: sales });
    expect(log.status).toBe(200);
    const exception = log.body.logEntries[0].exception as string;
    expect(exception).toMatch(/^SqliteError: boom\n/);
    // frames name their files relative to the install (src/… under the tests, dist/… installed), never from the root
    expect(exception).toMatch(/\((src|dist|node_modules)\/[^)]+:\d+:\d+\)/);
    expect(exception).not.toContain(process.cwd());
    expect(exception).not.toContain(homedir());
    expect(exception).not.toMatch(/\(\/|file:\/\//);
  });
});
