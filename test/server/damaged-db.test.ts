/**
 * A database file damaged in its middle (pages overwritten, the header intact) opens as
 * SQLite, so nothing looked until a request read the pages (a 500). `lic serve` checks the
 * file at start (PRAGMA quick_check) and refuses a damaged one: one line naming the file and
 * what was found, exit 1, nothing listening. A file over the start's threshold (256 MiB;
 * `quickCheckMaxBytes` here, LIC_TEST_QUICK_CHECK_MAX_BYTES for a spawned `lic serve`) is
 * checked in the background while the service answers: damage found, every request is
 * refused with 503 and `lic serve` stops with that same line, exit 1.
 */
import { closeSync, existsSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startService } from '../../src/server/index.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { http } from '../helpers/service.js';
import { spawnLic } from '../helpers/spawn.js';

const SECRET = Buffer.alloc(32, 7).toString('base64');

/** A database with the demo dataset (3,000 log entries), closed, then (unless `damaged` is false) pages in its middle overwritten; with the Administrator key of its first start. */
async function demoDb(damaged = true): Promise<{ dbPath: string; key: string }> {
  const dbPath = join(tempDir('lic-damaged-'), 'lic.db');
  const svc = await startService({ dbPath, port: 0, seed: 'demo', secretKey: SECRET });
  const key = svc.issuedKeys.find((k) => k.role === 'Administrator')!.key;
  svc.db.pragma('wal_checkpoint(TRUNCATE)');
  const pageSize = svc.db.pragma('page_size', { simple: true }) as number;
  await svc.close();
  if (!damaged) return { dbPath, key };
  const pages = Math.floor(statSync(dbPath).size / pageSize);
  const fd = openSync(dbPath, 'r+');
  try {
    // four pages from the middle on, the first byte of each (its b-tree page type) and some of its cells
    for (let p = Math.floor(pages / 2); p < Math.floor(pages / 2) + 4; p++) writeSync(fd, Buffer.alloc(512, 0xa5), 0, 512, p * pageSize);
  } finally {
    closeSync(fd);
  }
  return { dbPath, key };
}

const damagedDb = async () => (await demoDb()).dbPath;
const literally = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

describe('a database damaged in its middle', () => {
  it('startService refuses it, naming the file and what quick_check found', async () => {
    const dbPath = await damagedDb();
    await expect(startService({ dbPath, port: 0, secretKey: SECRET })).rejects.toThrow(
      new RegExp(`^${literally(dbPath)}: the database is damaged \\(SQLite quick_check: .+\\); restore it from a backup`),
    );
  });

  it('lic serve: one line, exit 1', async () => {
    const dbPath = await damagedDb();
    const r = await runCli(['serve', '--port', '0', '--db', dbPath, '--no-profile'], { env: { LIC_SECRET_KEY: SECRET } });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^lic: .*lic\.db: the database is damaged \(SQLite quick_check: [^\n]+\); restore it from a backup[^\n]*\n$/);
  });
});

describe('a database over the threshold: checked in the background while it serves', () => {
  it('damaged: startService resolves; the check reports the damage, every request then gets 503 in the envelope; close() releases the lock file', async () => {
    const { dbPath, key } = await demoDb();
    const warnings: string[] = [];
    const svc = await startService({ dbPath, port: 0, secretKey: SECRET, quickCheckMaxBytes: 1024, warn: (l) => warnings.push(l) });
    try {
      expect(warnings).toEqual([
        expect.stringMatching(/^the database is \d+ MiB, so its pages are checked in the background while it serves /),
      ]);
      const checked = await svc.check;
      // the start refusal's own line: the file, SQLite's first problem (without its "*** in database main ***" heading), the fix
      expect(checked.outcome).toBe('damaged');
      expect(checked.message).toMatch(
        new RegExp(
          `^${literally(dbPath)}: the database is damaged \\(SQLite quick_check: Tree \\d+ page \\d+: [^\n]+\\); restore it from a backup, or recover what is left with the sqlite3 shell's \\.recover$`,
        ),
      );
      for (const [method, path, k] of [
        ['GET', '/v1/log?take=1', key],
        ['GET', '/v1/api-keys', undefined],
        ['POST', '/v1/resources', key],
      ] as const) {
        const r = await http(svc, method, path, { key: k, body: method === 'POST' ? { resource: { name: 'r' } } : undefined });
        expect(r.status, `${method} ${path}`).toBe(503);
        expect(r.body).toEqual({
          success: false,
          code: 14,
          message: expect.stringMatching(
            /^the service's database is damaged \(SQLite quick_check: Tree \d+ page \d+: .+\) and the service is stopping; its operator must restore the database from a backup$/,
          ),
        });
        // no stack, and not the operator's file path
        expect(r.body.message).not.toContain(dbPath);
        expect(r.body.message).not.toMatch(/\n|\bat \S+ \(/);
        expect(r.headers.connection).toBe('close');
      }
    } finally {
      await svc.close();
    }
    expect(existsSync(`${dbPath}.lock`)).toBe(false);
    expect(existsSync(`${dbPath}.lock.json`)).toBe(false);
    // the file is the operator's to restore: served no more, refused at the next start (under the threshold)
    await expect(startService({ dbPath, port: 0, secretKey: SECRET })).rejects.toThrow(/the database is damaged/);
  });

  it('lic serve, spawned: listens, then the one line of the start refusal on stderr, exit 1, no lock file left', async () => {
    const { dbPath } = await demoDb();
    const r = await spawnLic(['serve', '--port', '0', '--db', dbPath, '--no-profile'], {
      env: {
        LIC_SECRET_KEY: SECRET,
        LIC_CONFIG_DIR: tempDir('lic-cfg-'),
        XDG_DATA_HOME: tempDir('lic-data-'),
        LIC_TEST_QUICK_CHECK_MAX_BYTES: '1024',
      },
    });
    expect(r.signal).toBeNull();
    expect(r.code, r.stderr).toBe(1);
    // it served: the URL, as for any start
    expect(r.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\n$/);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toContainEqual(expect.stringMatching(/^lic serve: the database is \d+ MiB, so its pages are checked in the background /));
    const damage = lines.filter((l) => /the database is damaged/.test(l));
    expect(damage).toEqual([
      expect.stringMatching(
        new RegExp(
          `^lic: ${literally(dbPath)}: the database is damaged \\(SQLite quick_check: Tree \\d+ page \\d+: [^\n]+\\); restore it from a backup`,
        ),
      ),
    ]);
    // the last line, and no stack
    expect(lines.at(-1)).toBe(damage[0]);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(`${dbPath}.lock`)).toBe(false);
    expect(existsSync(`${dbPath}.lock.json`)).toBe(false);
  });

  it('undamaged: answers while the check runs and after it; close() while it runs ends it (outcome stopped)', async () => {
    const { dbPath, key } = await demoDb(false);
    const svc = await startService({ dbPath, port: 0, secretKey: SECRET, quickCheckMaxBytes: 1024 });
    try {
      // sent at once: the check has hardly begun (nothing damaged, so its end changes nothing)
      const early = http(svc, 'GET', '/v1/log?take=1', { key });
      const checked = await svc.check;
      expect(checked).toEqual({ outcome: 'ok', ms: expect.any(Number) });
      expect((await early).status).toBe(200);
      const after = await http(svc, 'GET', '/v1/log?take=1', { key });
      expect(after.status).toBe(200);
      expect(after.body.totalLogEntriesCount).toBeGreaterThan(0);
    } finally {
      await svc.close();
    }

    // close() at once, the worker still starting or checking: it is ended, and close() waited for it
    const again = await startService({ dbPath, port: 0, secretKey: SECRET, quickCheckMaxBytes: 1024 });
    await again.close();
    expect(await again.check).toEqual({ outcome: 'stopped', ms: expect.any(Number) });
    expect(existsSync(`${dbPath}.lock`)).toBe(false);
    // the worker's connection went before the service's: the last to close removed the WAL
    expect(existsSync(`${dbPath}-wal`)).toBe(false);

    // under the threshold: checked before listening
    const small = await startService({ dbPath, port: 0, secretKey: SECRET });
    try {
      expect(await small.check).toEqual({ outcome: 'start' });
    } finally {
      await small.close();
    }
  });
});
