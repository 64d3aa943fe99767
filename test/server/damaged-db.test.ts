/**
 * A database file damaged in its middle (pages overwritten, the header intact) opens as
 * SQLite, so nothing looked until a request read the pages (a 500). `lic serve` checks the
 * file at start (PRAGMA quick_check) and refuses a damaged one: one line naming the file and
 * what was found, exit 1, nothing listening.
 */
import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startService } from '../../src/server/index.js';
import { runCli, tempDir } from '../helpers/cli.js';

const SECRET = Buffer.alloc(32, 7).toString('base64');

/** A database with the demo dataset (3,000 log entries), closed, then pages in its middle overwritten. */
async function damagedDb(): Promise<string> {
  const dbPath = join(tempDir('lic-damaged-'), 'lic.db');
  const svc = await startService({ dbPath, port: 0, seed: 'demo', secretKey: SECRET });
  svc.db.pragma('wal_checkpoint(TRUNCATE)');
  const pageSize = svc.db.pragma('page_size', { simple: true }) as number;
  await svc.close();
  const pages = Math.floor(statSync(dbPath).size / pageSize);
  const fd = openSync(dbPath, 'r+');
  try {
    // four pages from the middle on, the first byte of each (its b-tree page type) and some of its cells
    for (let p = Math.floor(pages / 2); p < Math.floor(pages / 2) + 4; p++) writeSync(fd, Buffer.alloc(512, 0xa5), 0, 512, p * pageSize);
  } finally {
    closeSync(fd);
  }
  return dbPath;
}

describe('a database damaged in its middle', () => {
  it('startService refuses it, naming the file and what quick_check found', async () => {
    const dbPath = await damagedDb();
    await expect(startService({ dbPath, port: 0, secretKey: SECRET })).rejects.toThrow(
      new RegExp(
        `^${dbPath.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: the database is damaged \\(SQLite quick_check: .+\\); restore it from a backup`,
      ),
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
