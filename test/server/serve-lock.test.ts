/**
 * The database's lock file (src/server/serve-lock.ts) in-process: a live holder refuses a
 * second service naming its process and URL; a lock whose process is gone, whose process id
 * now belongs to a process started at another time, or that is unreadable, is stale and taken
 * over; a second service in the same process is refused too; a closed service leaves no lock.
 * Two real processes (and a SIGKILL) are in test/commands/serve/serve.spawned.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DatabaseInUseError, startService } from '../../src/server/index.js';
import { processStartTime } from '../../src/server/serve-lock.js';
import { tempDir } from '../helpers/temp.js';

/** The id of a process that has exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}

describe('the lock file of a served database', () => {
  it('held by a live process: refused naming it and its URL; nothing opened', async () => {
    const db = join(tempDir(), 'lic.db');
    const holder = process.ppid;
    writeFileSync(`${db}.lock`, JSON.stringify({ pid: holder, started: processStartTime(holder), url: 'http://127.0.0.1:9' }));
    const err = await startService({ dbPath: db, port: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseInUseError);
    expect((err as Error).message).toBe(
      `the database ${db} is already served by lic serve process ${holder} at http://127.0.0.1:9: use that one, stop it first, or choose another --db (if process ${holder} is not a lic serve, remove ${db}.lock)`,
    );
    expect(existsSync(db)).toBe(false);
    expect(JSON.parse(readFileSync(`${db}.lock`, 'utf8')).pid).toBe(holder);
  });

  it.each([
    ['its process is gone', () => ({ pid: deadPid() })],
    ['its process id was reused by a process started at another time', () => ({ pid: process.ppid, started: '1' })],
    ['it is not a lock lic wrote', () => 'not json'],
  ])('stale when %s: taken over, then removed on close', async (_why, content) => {
    if (_why.includes('reused') && processStartTime(process.ppid) === undefined) return; // no /proc: the start time can't tell
    const db = join(tempDir(), 'lic.db');
    const c = content();
    writeFileSync(`${db}.lock`, typeof c === 'string' ? c : JSON.stringify(c));
    const svc = await startService({ dbPath: db, port: 0 });
    try {
      expect(JSON.parse(readFileSync(`${db}.lock`, 'utf8'))).toMatchObject({ pid: process.pid, url: svc.url });
    } finally {
      await svc.close();
    }
    expect(existsSync(`${db}.lock`)).toBe(false);
  });

  it('a second service in the same process is refused; once the first closes, a new one starts', async () => {
    const db = join(tempDir(), 'lic.db');
    const first = await startService({ dbPath: db, port: 0 });
    try {
      await expect(startService({ dbPath: db, port: 0 })).rejects.toThrow(
        `already served by lic serve process ${process.pid} at ${first.url}`,
      );
      // the refused start removed nothing of the running service's
      expect(existsSync(db)).toBe(true);
      expect(existsSync(`${db}.key`)).toBe(true);
    } finally {
      await first.close();
    }
    const again = await startService({ dbPath: db, port: 0 });
    await again.close();
  });
});
