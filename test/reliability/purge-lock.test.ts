/**
 * A purge that waits for the write lock: another process holds the database's write lock,
 * `DELETE /v1/log?endDate=2099-01-01` arrives, then writes queue behind it; the lock is
 * released and they race for it. A purge deletes only the entries that existed when it
 * began (its request's arrival, contract §6): whichever commits first, every acknowledged
 * write keeps its audit entry, and `deletedLogCount` is exactly the entries there were.
 * Many rounds, each with entries over several days (the head partition among them) and a
 * deleteAll round every fourth.
 */
import { join } from 'node:path';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, writeLogEntries, type RunningService } from '../../src/server/index.js';
import type { LogRow } from '../../src/server/log-writer.js';
import { holdWriteLock } from '../helpers/lock-holder.js';
import { tempDir } from '../helpers/temp.js';
import { recordFigures } from './figures.js';

const ROUNDS = 16;
const WRITES = 5;
const ENTRIES = 600;
const DAY = 86_400_000;

let svc: RunningService;
let key = '';
const dbPath = join(tempDir('lic-purge-lock-tier-'), 'lic.db');
beforeAll(async () => {
  svc = await startService({
    dbPath,
    port: 0,
    authFailLimit: { limit: 0, windowMs: 60_000 },
    secretKey: Buffer.alloc(32, 5).toString('base64'),
  });
  key = svc.issuedKeys[0]!.key;
});
/** Waits (up to 10 s) until the worker that drops purged partitions' tables has none left. */
async function dropsDone(): Promise<void> {
  for (let i = 0; i < 200 && (svc.db.prepare('SELECT count(*) FROM log_drops').pluck().get() as number) > 0; i++) await sleep(50);
}
afterAll(async () => {
  // the purged partitions' tables are dropped by a worker on its own connection: let it finish before the files go
  await dropsDone();
  await svc.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a purge queued behind another process’s write lock', () => {
  it(`${ROUNDS} rounds: purge, then ${WRITES} writes, all waiting for the lock; no acknowledged write loses its audit entry`, async () => {
    const pool = new Pool(svc.url, { connections: WRITES + 2 });
    const call = async (method: 'POST' | 'DELETE', path: string, body?: unknown) => {
      const r = await pool.request({
        method,
        path,
        headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: r.statusCode, body: (await r.body.json()) as Record<string, unknown> };
    };
    const count = (sql: string, ...p: unknown[]) =>
      svc.db
        .prepare(sql)
        .pluck()
        .get(...p) as number;
    const lost: string[] = [];
    const miscounted: string[] = [];
    const other: string[] = [];
    let acked = 0;
    let writesFirst = 0;
    let purged = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // entries over the last 3 days, today's (the head partition) included
      const now = Date.now();
      const rows: LogRow[] = Array.from({ length: ENTRIES }, (_, i) => [
        now - 3 * DAY + Math.floor((i * 3 * DAY) / ENTRIES),
        'Information',
        `round ${round} entry ${i}`,
        'round {Round} entry {I}',
        '',
        JSON.stringify({ Round: round, I: i }),
      ]);
      // the last round's purged tables are dropped by a worker holding the write lock on its own connection: this direct write waits for it
      await dropsDone();
      writeLogEntries(svc.db, rows);
      const existing = count('SELECT count(*) FROM log');
      const deleteAll = round % 4 === 3;
      const lock = await holdWriteLock(dbPath);
      const purge = call('DELETE', deleteAll ? '/v1/log?deleteAll=true' : '/v1/log?endDate=2099-01-01');
      // the purge arrives first and waits; writes come while it waits (its backoff grows, theirs starts short)
      await sleep(900);
      const writes = Array.from({ length: WRITES }, (_, w) => call('POST', '/v1/resources', { resource: { name: `r${round}-${w}` } }));
      await sleep(300);
      await lock.release();
      const [p, ...ws] = await Promise.all([purge, ...writes]);
      if (p.status !== 200) {
        other.push(`round ${round} purge: ${p.status} ${JSON.stringify(p.body)}`);
        continue;
      }
      purged += p.body.deletedLogCount as number;
      if (p.body.deletedLogCount !== existing)
        miscounted.push(`round ${round}: deletedLogCount ${String(p.body.deletedLogCount)} for ${existing}`);
      const purgeEntry = count(
        "SELECT min(id) FROM log WHERE json_extract(properties, '$.Path') = '/v1/log' AND json_extract(properties, '$.Method') = 'DELETE'",
      );
      for (const [w, r] of ws.entries()) {
        if (r.status !== 200) {
          other.push(`round ${round} write ${w}: ${r.status} ${JSON.stringify(r.body)}`);
          continue;
        }
        acked++;
        const id = r.body.resourceId as number;
        const entry = count(
          "SELECT min(id) FROM log WHERE json_extract(properties, '$.Path') = '/v1/resources' AND json_extract(properties, '$.RecordId') = ?",
          id,
        );
        if (entry === null) lost.push(`round ${round}: resource ${id} has no audit entry`);
        else if (entry < purgeEntry) writesFirst++;
      }
      // the entries of this round are gone, none of another (the writes', the purge's own, the lock holder's stay)
      expect(count("SELECT count(*) FROM log WHERE message LIKE 'round % entry %'")).toBe(0);
    }
    await pool.close();

    recordFigures('purge-lock', `Purges waiting for another process’s write lock, writes queued behind them: ${ROUNDS} rounds`, {
      'rounds (every 4th a deleteAll, the others endDate=2099-01-01)': ROUNDS,
      'entries in the log as each purge arrived': `${ENTRIES} + what earlier rounds left`,
      'entries purged in all': purged,
      'deletedLogCount ≠ the entries there were as it arrived': miscounted.length,
      'writes acknowledged': acked,
      'writes committed before the purge got the lock': writesFirst,
      'acknowledged writes without their audit entry': lost.length,
      'other failures': other.length,
    });
    expect(other).toEqual([]);
    expect(lost).toEqual([]);
    expect(miscounted).toEqual([]);
    // the race was run: writes did overtake the waiting purge
    expect(writesFirst).toBeGreaterThan(0);
  });
});
